package io.ringkv.node;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Everything under {@code /ui}: the dashboard's files ({@link DashboardAssets}) from the moment the
 * port is bound, and its JSON ({@link DashboardApi}) once the node has joined the cluster
 * ({@code 503} before, as the rest of the API). {@code /ui} redirects to {@code /ui/}, so that the
 * page's relative URLs resolve under it.
 *
 * <p>Threading: {@link #ready} once, from the starting thread; {@link #handle} on handler threads.
 */
final class Dashboard implements HttpHandler {

    static final String ROOT = "/ui";

    private final DashboardAssets assets;
    private volatile HttpHandler api;

    Dashboard(DashboardAssets assets) {
        this.assets = assets;
    }

    /** Whether {@code path} is the dashboard's. */
    static boolean serves(String path) {
        return path.equals(ROOT) || path.startsWith(ROOT + "/");
    }

    void ready(HttpHandler handler) {
        api = handler;
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        String path = request.path();
        if (path.startsWith(DashboardApi.PREFIX)) {
            HttpHandler current = api;
            if (current == null) {
                return done(Response.text(503, "starting").withHeader("Retry-After", "1"));
            }
            return current.handle(request);
        }
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return done(Response.text(405, request.method() + " is not supported on " + path).withHeader("Allow", "GET, HEAD"));
        }
        if (path.equals(ROOT)) {
            return done(Response.of(301).withHeader("Location", ROOT + "/"));
        }
        return done(assets.answer(request));
    }

    private static CompletionStage<Response> done(Response response) {
        return CompletableFuture.completedFuture(response);
    }
}
