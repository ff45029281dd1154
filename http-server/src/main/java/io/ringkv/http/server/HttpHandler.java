package io.ringkv.http.server;

import java.util.concurrent.CompletionStage;

/**
 * Application logic behind an {@link HttpServer}.
 *
 * <p>Threading: {@link #handle} is called on the server's bounded handler executor, never on an
 * event loop, so it may do short blocking work (a RocksDB point read) and return a completed
 * stage. Long or remote work should return an incomplete stage and complete it later from any
 * thread; the server encodes the response on whichever thread completes it, without a hop.
 *
 * <p>Errors: a stage completed exceptionally, or an exception thrown from {@code handle}, becomes
 * {@code 500 Internal Server Error}, and the cause is logged.
 */
@FunctionalInterface
public interface HttpHandler {
    CompletionStage<Response> handle(Request request) throws Exception;
}
