package io.ringkv.http.client.internal;

import java.util.concurrent.CompletableFuture;

/**
 * Starts exchanges for a client: picks or opens a connection for the request's route and runs the
 * request on it with the connection's protocol (HTTP/1.1 or HTTP/2).
 *
 * <p>Threading: thread-safe; called from application threads and the client executor.
 */
public interface ExchangeCodec extends AutoCloseable {

    /**
     * Sends {@code request} to {@code route}. The future completes once the request is on its way
     * (a connection was obtained); the response arrives through {@link Exchange#responseHead()}.
     * Fails with {@link java.net.http.HttpConnectTimeoutException} or another
     * {@link java.io.IOException} when no connection could be made.
     */
    CompletableFuture<Exchange> start(ExchangeRequest request, Route route, Call<?> call);

    /**
     * Like {@link #start} but on a newly opened connection when the codec pools connections and
     * may still open one (a retry after a stale pooled connection); otherwise the same as start.
     */
    default CompletableFuture<Exchange> startFresh(ExchangeRequest request, Route route, Call<?> call) {
        return start(request, route, call);
    }

    /** Closes every connection now; exchanges in progress fail. */
    @Override
    void close();
}
