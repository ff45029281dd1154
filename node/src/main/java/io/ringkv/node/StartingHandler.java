package io.ringkv.node;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The server's handler while the node is still wiring itself up: the port is bound first (so a
 * port-0 node learns its own URL, and a taken port fails before anything else is opened), and
 * requests that arrive before {@link #ready} get {@code 503} so clients and
 * {@code /v0/status} pollers retry.
 *
 * <p>Threading: {@link #ready} from the starting thread; {@link #handle} from handler threads.
 */
final class StartingHandler implements HttpHandler {
    private volatile HttpHandler delegate;

    void ready(HttpHandler handler) {
        delegate = handler;
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        HttpHandler current = delegate;
        if (current == null) {
            return CompletableFuture.completedFuture(Response.text(503, "starting").withHeader("Retry-After", "1"));
        }
        return current.handle(request);
    }
}
