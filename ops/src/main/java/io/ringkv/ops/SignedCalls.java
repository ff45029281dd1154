package io.ringkv.ops;

import io.ringkv.cluster.InternalAuth;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * Internal requests from a command (not a node) to one node's endpoint: each signed for
 * that node, each answer accepted only with the node's proof for that request, so a host on the
 * path cannot make {@code ringkv repair} report a round that did not happen.
 */
final class SignedCalls {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** A verified answer. */
    record Answer(int status, String body) {
    }

    private final HttpClient http;
    private final InternalAuth auth;
    private final URI uri;
    private final String receiver;
    private final Duration timeout;

    /** @param receiver the node's id as its cluster knows it */
    SignedCalls(HttpClient http, InternalAuth auth, URI uri, String receiver) {
        this(http, auth, uri, receiver, TIMEOUT);
    }

    /** @param timeout per request, until the answer's head arrives */
    SignedCalls(HttpClient http, InternalAuth auth, URI uri, String receiver, Duration timeout) {
        this.http = http;
        this.auth = auth;
        this.uri = uri;
        this.receiver = receiver;
        this.timeout = timeout;
    }

    /** @throws IOException also when the answer carries no valid proof of the cluster secret */
    Answer send(String method) throws IOException, InterruptedException {
        return send(method, new byte[0]);
    }

    /** With a body, which the request's proof covers. */
    Answer send(String method, byte[] requestBody) throws IOException, InterruptedException {
        Map<String, String> signed = auth.sign(receiver, method, uri.getRawPath(), Map.of(), requestBody);
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(timeout).method(method,
                requestBody.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(requestBody));
        signed.forEach(builder::header);
        HttpResponse<byte[]> response = http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        String body = new String(response.body(), StandardCharsets.UTF_8);
        // Only answers acted on need the proof: a refusal (403) or an error carries none, and the
        // command reports it as a failure whatever it says.
        boolean success = response.statusCode() / 100 == 2;
        if (success && !auth.answers().verifies(InternalAuth.proofOf(signed), response.statusCode(), response.headers(), response.body())) {
            throw new IOException("the answer (status " + response.statusCode() + ") carries no valid proof of the cluster secret");
        }
        return new Answer(response.statusCode(), body);
    }
}
