package io.ringkv.http.server;

/**
 * Told of every request the {@link HttpHandler} answered, for metrics: the request, the status of
 * its response, and the time from its dispatch to the handler executor until the response was
 * handed to the connection (a streamed body may still be flowing).
 *
 * <p>Requests the server answers itself, without the handler (parse errors, 503 over the in-flight
 * budget), are not reported here; {@link HttpServer#requestsRefused()} counts the 503s.
 *
 * <p>Threading: called on whichever thread completed the handler's stage (a handler thread, an
 * inter-node client thread), concurrently. Implementations must be fast, must not block and
 * should not allocate: every request pays for them. An exception is logged and ignored.
 */
@FunctionalInterface
public interface ExchangeListener {

    /** Tells nobody. */
    ExchangeListener NONE = (request, status, elapsedNanos) -> { };

    void onResponse(Request request, int status, long elapsedNanos);
}
