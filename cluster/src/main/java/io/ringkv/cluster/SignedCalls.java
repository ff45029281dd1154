package io.ringkv.cluster;

import io.ringkv.http.client.RingBodyPublishers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * One-off signed calls on the internal plane that are not replica traffic: membership steps and
 * metadata reads. Each request carries the proof of the cluster secret ({@link InternalAuth}) and
 * the sender's metadata epoch; an answer counts only with its own proof ({@link AnswerAuth}), so a
 * stranger on the path can neither forge a step nor feed a node false metadata.
 *
 * <p>Threading: immutable and thread-safe; futures complete on {@code executor}, never on the
 * HTTP client's network thread.
 */
public final class SignedCalls {

    /** The longest refusal text kept in an exception or an answer. */
    private static final int REASON_CHARS_MAX = 400;

    private final HttpClient http;
    private final InternalAuth auth;
    private final java.util.function.LongSupplier epoch;
    private final Executor executor;

    /**
     * An answer that proved it came from the node asked: its status, body, and the metadata epoch
     * the node named (-1 when it named none: metadata endpoints do not).
     */
    public record Answer(int status, byte[] body, long epoch) {
        /** The body as text, cut to a length fit for a message. */
        public String text() {
            String text = new String(body, StandardCharsets.UTF_8);
            return text.length() <= REASON_CHARS_MAX ? text : text.substring(0, REASON_CHARS_MAX) + "...";
        }
    }

    /**
     * @param epoch    this node's metadata epoch, sent with each call
     * @param executor completes the calls' futures
     */
    public SignedCalls(HttpClient http, InternalAuth auth, java.util.function.LongSupplier epoch, Executor executor) {
        this.http = http;
        this.auth = auth;
        this.epoch = epoch;
        this.executor = executor;
    }

    /**
     * Sends {@code method path} with {@code body} (empty for none) to the node at {@code nodeUrl}.
     *
     * @return the proven answer, whatever its status; fails with an {@link IOException} when the
     *         node cannot be reached within {@code timeout} or its answer carries no valid proof
     */
    public CompletableFuture<Answer> call(String nodeUrl, String method, String path, byte[] body, Duration timeout) {
        HttpRequest request;
        Map<String, String> signed;
        try {
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(nodeUrl + path)).timeout(timeout)
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : RingBodyPublishers.ofByteArrayNoCopy(body));
            signed = auth.sign(nodeUrl, method, path, Map.of(InternalProtocol.EPOCH_HEADER, Long.toString(epoch.getAsLong())), body);
            signed.forEach(builder::header);
            request = builder.build();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new IOException("cannot call " + nodeUrl + path + ": " + e.getMessage(), e));
        }
        String proof = InternalAuth.proofOf(signed);
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).handleAsync((response, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                throw new CompletionException(cause instanceof IOException ? cause
                        : new IOException(method + " " + path + " to " + nodeUrl + " failed: " + cause, cause));
            }
            if (!auth.answers().verifies(proof, response.statusCode(), response.headers(), response.body())) {
                String text = new String(response.body(), StandardCharsets.UTF_8);
                // Answers the server gives before any handler (503 while it sheds load, 4xx at the
                // head) carry no proof; neither does a node with another secret. Neither is trusted.
                String why = response.statusCode() == 503 ? " (not taken: the node sheds load or is starting)"
                        : " without a valid proof of the cluster secret (another secret, or refused before any handler)";
                throw new CompletionException(new IOException(nodeUrl + " answered " + response.statusCode() + " to " + path
                        + why + ": " + text.substring(0, Math.min(text.length(), REASON_CHARS_MAX))));
            }
            long theirs = -1;
            try {
                theirs = Long.parseLong(response.headers().firstValue(InternalProtocol.EPOCH_HEADER).orElse("-1"));
            } catch (NumberFormatException e) {
                // proven, yet malformed: treated as naming none
            }
            return new Answer(response.statusCode(), response.body(), theirs);
        }, executor);
    }
}
