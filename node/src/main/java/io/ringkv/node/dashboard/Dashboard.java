package io.ringkv.node.dashboard;

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
 * <p>Every one of them first checks the request's {@code Host} against the node's own names
 * ({@link DashboardHosts}): a foreign name gets {@code 421 Misdirected Request}, the status for a
 * request this server will not answer for the name it was sent to (RFC 9110 §15.5.20), which is
 * what a page that rebound its own DNS name to this node sends. {@code /v0/status} and
 * {@code /metrics} are not checked: load balancers and scrapers ask them under whatever name they
 * were given, and they hold no keys or values.
 *
 * <p>Threading: {@link #ready} once, from the starting thread; {@link #handle} on handler threads.
 */
public final class Dashboard implements HttpHandler {

    public static final String ROOT = "/ui";

    private final DashboardAssets assets;
    private final DashboardHosts hosts;
    private volatile HttpHandler api;

    public Dashboard(DashboardAssets assets, DashboardHosts hosts) {
        this.assets = assets;
        this.hosts = hosts;
    }

    /** Whether {@code path} is the dashboard's. */
    public static boolean serves(String path) {
        return path.equals(ROOT) || path.startsWith(ROOT + "/");
    }

    public void ready(HttpHandler handler) {
        api = handler;
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        String path = request.path();
        if (!hosts.allows(request.headers().first("Host").orElse(null))) {
            // The name is not echoed: it is the requester's, and this answer goes to a page that should learn nothing.
            return done(Response.text(421, "this node's dashboard answers only under the node's own names; "
                    + "to reach it under another DNS name, start the node with --ui-allowed-hosts NAME"));
        }
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
