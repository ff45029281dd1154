package io.ringkv.bench.client;

import java.util.concurrent.CompletableFuture;

/**
 * One client under test, bound to one request (method, URI, body) that it repeats. Both calls
 * check the answer (status 200 and the expected body length) so that a client that fails fast
 * cannot look fast.
 *
 * <p>Threading: {@link #send()} from one thread at a time; {@link #sendAsync()} from any thread.
 */
public interface BenchClient extends AutoCloseable {

    /** Sends the request, waits for the whole response body; returns the HTTP version used ("HTTP/2"...). */
    String send() throws Exception;

    /** Sends a GET to the same URI (whatever the bound method) and returns the HTTP version used; for setup. */
    String probe() throws Exception;

    /** Sends the request; the future completes when the whole response body has arrived and was checked. */
    CompletableFuture<Void> sendAsync();

    /** The clients measured; each knows how to build itself for one protocol and transport. */
    enum Kind { JDK, JETTY, RING }

    /** HTTP/1.1 or HTTP/2 (cleartext by h2c; over TLS by ALPN). */
    enum Protocol { H1, H2 }

    /**
     * How a {@code java.net.http} client publishes a POST body: {@code JDK} is
     * {@code BodyPublishers.ofByteArray} (a copy of the array per send), {@code NO_COPY}
     * {@code RingBodyPublishers.ofByteArrayNoCopy} (read-only views of the array). Jetty's client
     * always sends through its own API, which wraps the array.
     */
    enum Publisher { JDK, NO_COPY }

    /** {@code postBody} null means GET; {@code tls} null means cleartext. */
    static BenchClient create(Kind kind, Protocol protocol, javax.net.ssl.SSLContext tls, java.net.URI uri,
            byte[] postBody, Publisher publisher, int expectedBytes) throws Exception {
        return kind == Kind.JETTY ? new JettyBenchClient(protocol, tls, uri, postBody, expectedBytes)
                : new JavaNetBenchClient(kind, protocol, tls, uri, postBody, publisher == Publisher.NO_COPY,
                        expectedBytes);
    }

    static void check(int status, int bodyBytes, int expectedBytes) throws java.io.IOException {
        if (status != 200 || bodyBytes != expectedBytes) {
            throw new java.io.IOException("unexpected answer: status " + status + ", " + bodyBytes
                    + " body bytes where " + expectedBytes + " were expected");
        }
    }
}
