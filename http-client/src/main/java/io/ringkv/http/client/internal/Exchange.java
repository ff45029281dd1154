package io.ringkv.http.client.internal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * One request/response attempt on one connection, as an {@link ExchangeCodec} runs it.
 *
 * <p>Threading: all methods may be called from any thread. {@link #responseHead()} may complete on
 * an event loop; callers hop to the client executor before running user code. Body signals reach
 * the subscriber on the client executor, serially.
 */
public interface Exchange {

    /** Completes with the final response head, or fails with an {@link java.io.IOException}. */
    CompletableFuture<ResponseHead> responseHead();

    /**
     * Starts delivering the response body to {@code subscriber}, honouring its demand. Called at
     * most once, and only after {@link #responseHead()} completed normally.
     */
    void deliverBody(Flow.Subscriber<List<ByteBuffer>> subscriber);

    /**
     * The array the body is being copied into since its head arrived, when the request asked for
     * it ({@link ExchangeRequest#bodyToArray()}); {@code null} otherwise. Once the application
     * takes it, it is {@linkplain #deliverBody delivered} like any subscriber.
     */
    default ByteArrayBody arrayBody() {
        return null;
    }

    /**
     * The body will not be read (a redirect or an authentication retry follows): drain it if that
     * keeps the connection reusable, else close the connection.
     */
    void discardBody();

    /** The TLS session the exchange ran over; empty in cleartext. */
    default java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
        return java.util.Optional.empty();
    }

    /** Ends the attempt now: the connection is closed, pending signals fail with {@code cause}. Idempotent. */
    void abort(Throwable cause);
}
