package io.ringkv.cluster.peer;

import io.ringkv.http.Headers;
import io.ringkv.http.client.ClientStats;
import io.ringkv.http.client.RingBodyPublishers;
import io.ringkv.http.client.RingHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The node-to-node requests over a {@link java.net.http.HttpClient}: ringkv's own client
 * ({@code --internode-client RING}) or the JDK's ({@code JDK}), kept to compare
 * {@link H2PeerTransport} against. Each request becomes an {@link HttpRequest} with a {@link URI},
 * its body a publisher, its answer's fields an {@link HttpHeaders}: the layers the direct
 * transport leaves out.
 *
 * <p>Threading: thread-safe; futures complete where the client completes them (on its network
 * thread with ringkv's client, whose executor runs completions inline here).
 */
public final class HttpClientTransport implements PeerTransport {

    private final HttpClient http;

    /** @param http closed with this transport */
    public HttpClientTransport(HttpClient http) {
        this.http = http;
    }

    @Override
    public CompletableFuture<PeerAnswer> send(PeerRequest request) {
        HttpRequest built;
        try {
            built = build(request);
        } catch (RuntimeException e) { // a malformed origin or field
            return CompletableFuture.failedFuture(e);
        }
        return http.sendAsync(built, HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(response -> new PeerAnswer(request, response.statusCode(), fieldsOf(response.headers()),
                        response.body()));
    }

    @Override
    public CompletableFuture<PeerStreamedAnswer> open(PeerRequest request) {
        HttpRequest built;
        try {
            built = build(request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return http.sendAsync(built, DeadlineBodyStream.handler(request.timeout()))
                .thenApply(response -> new PeerStreamedAnswer(request, response.statusCode(), fieldsOf(response.headers()),
                        response.body()));
    }

    @Override
    public Optional<ClientStats> stats() {
        return RingHttpClient.stats(http);
    }

    @Override
    public void close() {
        http.shutdownNow();
    }

    private static HttpRequest build(PeerRequest request) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(request.origin() + request.target()))
                .timeout(request.timeout());
        request.fields().forEach(builder::header);
        byte[] body = request.body();
        if (body.length == 0 && (request.method().equals("GET") || request.method().equals("DELETE"))) {
            builder.method(request.method(), HttpRequest.BodyPublishers.noBody());
        } else {
            // The body never changes once handed over (PeerRequest), so no copy per send.
            builder.method(request.method(), RingBodyPublishers.ofByteArrayNoCopy(body));
        }
        return builder.build();
    }

    private static Headers fieldsOf(HttpHeaders headers) {
        Map<String, List<String>> map = headers.map();
        Headers fields = new Headers(map.size());
        map.forEach((name, values) -> values.forEach(value -> fields.add(name, value)));
        return fields;
    }
}
