package io.ringkv.bench.client;

import io.ringkv.http.client.RingBodyPublishers;
import io.ringkv.http.client.RingHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;

/**
 * A {@code java.net.http.HttpClient}: the JDK's own or ours ({@link RingHttpClient}), driven
 * through the same API with the same immutable request.
 *
 * <p>HTTP/2 on {@code http://}: the JDK cannot use prior knowledge, so it gets version HTTP_2 and
 * upgrades the first request with {@code Upgrade: h2c}; ours uses prior knowledge. Over TLS both
 * offer h2 by ALPN when asked for HTTP_2 and only http/1.1 otherwise.
 *
 * <p>Threading: as the wrapped client (thread-safe).
 */
final class JavaNetBenchClient implements BenchClient {
    private final HttpClient client;
    private final HttpRequest request;
    private final HttpRequest probe;
    private final int expectedBytes;

    JavaNetBenchClient(Kind kind, Protocol protocol, SSLContext tls, URI uri, byte[] postBody, boolean wrapBody,
            int expectedBytes) {
        HttpClient.Version version = protocol == Protocol.H2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1;
        this.client = kind == Kind.RING ? ring(version, tls) : jdk(version, tls);
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).version(version);
        this.request = postBody == null ? builder.GET().build()
                : builder.POST(wrapBody ? RingBodyPublishers.ofByteArrayNoCopy(postBody)
                        : HttpRequest.BodyPublishers.ofByteArray(postBody)).build();
        this.probe = HttpRequest.newBuilder(uri).version(version).GET().build();
        this.expectedBytes = expectedBytes;
    }

    private static HttpClient jdk(HttpClient.Version version, SSLContext tls) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(version);
        if (tls != null) {
            builder.sslContext(tls);
        }
        return builder.build();
    }

    /**
     * Microseconds a synchronous send of ours may spin before it parks; unset keeps the client's
     * default. For A/B runs: {@code -jvmArgsAppend -Dringkv.bench.syncSendSpinMicros=0}.
     */
    static final String SYNC_SPIN_PROPERTY = "ringkv.bench.syncSendSpinMicros";

    private static HttpClient ring(HttpClient.Version version, SSLContext tls) {
        RingHttpClient.Builder builder = RingHttpClient.newBuilder().version(version);
        if (tls != null) {
            builder.sslContext(tls);
        } else if (version == HttpClient.Version.HTTP_2) {
            builder.http2PriorKnowledge(true);
        }
        String spin = System.getProperty(SYNC_SPIN_PROPERTY);
        if (spin != null) {
            builder.syncSendSpin(Duration.ofNanos(Long.parseLong(spin) * 1_000));
        }
        return builder.build();
    }

    @Override
    public String send() throws Exception {
        HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        BenchClient.check(response.statusCode(), response.body().length, expectedBytes);
        return response.version() == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1";
    }

    @Override
    public String probe() throws Exception {
        HttpResponse<byte[]> response = client.send(probe, HttpResponse.BodyHandlers.ofByteArray());
        return response.version() == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1";
    }

    @Override
    public CompletableFuture<Void> sendAsync() {
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenAccept(response -> {
            try {
                BenchClient.check(response.statusCode(), response.body().length, expectedBytes);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Override
    public void close() {
        client.close();
    }
}
