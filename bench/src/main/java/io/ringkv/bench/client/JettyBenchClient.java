package io.ringkv.bench.client;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * Jetty 12's client: HTTP/1.1 transport, or the HTTP/2 transport (cleartext by prior knowledge;
 * over TLS by ALPN, offering h2 only). Jetty requests are single-use, so each send builds one.
 *
 * <p>Threading: as Jetty's HttpClient (thread-safe).
 */
final class JettyBenchClient implements BenchClient {
    /** Jetty buffers responses up to this size; above it fails (the largest body is 1 MiB). */
    private static final int RESPONSE_BYTES_MAX = 2 * 1024 * 1024;
    /** Same as the JDK's (unbounded) and ours (64): every request of the 64 in flight may get a connection. */
    private static final int CONNECTIONS_PER_DESTINATION = 64;

    private final HttpClient client;
    private final URI uri;
    private final byte[] postBody;
    private final int expectedBytes;

    JettyBenchClient(Protocol protocol, SSLContext tls, URI uri, byte[] postBody, int expectedBytes) throws Exception {
        ClientConnector connector = new ClientConnector();
        if (tls != null) {
            SslContextFactory.Client ssl = new SslContextFactory.Client();
            ssl.setSslContext(tls);
            connector.setSslContextFactory(ssl);
        }
        this.client = new HttpClient(protocol == Protocol.H2
                ? new HttpClientTransportOverHTTP2(new HTTP2Client(connector))
                : new HttpClientTransportOverHTTP(connector));
        client.setMaxConnectionsPerDestination(CONNECTIONS_PER_DESTINATION);
        client.setFollowRedirects(false);
        client.start();
        this.uri = uri;
        this.postBody = postBody;
        this.expectedBytes = expectedBytes;
    }

    private Request newRequest() {
        Request request = client.newRequest(uri);
        if (postBody != null) {
            request.method(HttpMethod.POST).body(new BytesRequestContent(postBody));
        }
        return request;
    }

    @Override
    public String send() throws Exception {
        ContentResponse response = new CompletableResponseListener(newRequest(), RESPONSE_BYTES_MAX).send().get();
        BenchClient.check(response.getStatus(), response.getContent().length, expectedBytes);
        return response.getVersion() == HttpVersion.HTTP_2 ? "HTTP/2" : "HTTP/1.1";
    }

    @Override
    public String probe() throws Exception {
        ContentResponse response = new CompletableResponseListener(client.newRequest(uri), RESPONSE_BYTES_MAX).send().get();
        return response.getVersion() == HttpVersion.HTTP_2 ? "HTTP/2" : "HTTP/1.1";
    }

    @Override
    public CompletableFuture<Void> sendAsync() {
        return new CompletableResponseListener(newRequest(), RESPONSE_BYTES_MAX).send().thenAccept(response -> {
            try {
                BenchClient.check(response.getStatus(), response.getContent().length, expectedBytes);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Override
    public void close() throws Exception {
        client.stop();
    }
}
