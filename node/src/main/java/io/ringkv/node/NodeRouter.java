package io.ringkv.node;

import io.ringkv.cluster.InternalProtocol;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.node.dashboard.Dashboard;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The server's handler for the node's whole life. {@code /v0/status} and {@code /metrics} answer
 * from the moment the port is bound (the status says 503 until the node serves), and so does the
 * dashboard under {@code /ui} (its files at once, its data once the node serves); everything else
 * gets {@code 503} until {@link #ready}, because the port is bound first (so a port-0 node learns
 * its own URL, and a taken port fails before anything else is opened). Then {@code /internal/...}
 * goes to the node-to-node handler (400 on a node without one: a single node has no peers) and
 * the rest to the public API; the two never see each other's requests.
 *
 * <p>At a request's head ({@link #admit}, on an event loop) the node-to-node handler's head checks
 * run for its routes (the proof's fields, each route's body limit), once it is ready; the public
 * API, the status, metrics and dashboard take no body worth refusing early (a public route's body
 * is bounded by {@code --max-body} alone, chunked uploads included).
 *
 * <p>Threading: {@link #ready} from the starting thread; {@link #handle} from handler threads, or
 * from event loops for the requests {@link #onLoop} names; {@link #admit} from event loops.
 */
final class NodeRouter implements HttpHandler, HeadAdmission {
    private final HttpHandler status;
    private final HttpHandler metrics;
    private final HttpHandler dashboard;
    private volatile HttpHandler api;
    /** The node-to-node handler; null on a node without peers. Written before {@link #api}, read after it. */
    private volatile HttpHandler internal;
    /** Whether the public API's plain reads and writes run on the loop. Written before {@link #api}, read after it. */
    private volatile boolean publicOnLoop;

    NodeRouter(HttpHandler status, HttpHandler metrics, HttpHandler dashboard) {
        this.status = status;
        this.metrics = metrics;
        this.dashboard = dashboard;
    }

    /** As {@link #ready(HttpHandler, HttpHandler, boolean)}, with the public API's plain reads and writes on the loop. */
    void ready(HttpHandler publicApi, HttpHandler internalPlane) {
        ready(publicApi, internalPlane, true);
    }

    /**
     * @param internalPlane the node-to-node handler for {@code /internal/...}, or null for none
     * @param publicOnLoop  whether the public API's plain reads and writes of a key may run on the
     *                      event loop ({@link #onLoop}): false when the coordinator's peer calls
     *                      could block the calling thread
     */
    void ready(HttpHandler publicApi, HttpHandler internalPlane, boolean publicOnLoop) {
        internal = internalPlane;
        this.publicOnLoop = publicOnLoop;
        api = publicApi;
    }

    private static boolean internal(String path) {
        return path.startsWith(InternalProtocol.PREFIX);
    }

    @Override
    public Optional<Response> admit(HeadAdmission.Head head) {
        String path = head.path();
        if (path.equals(StatusEndpoint.PATH) || path.equals(MetricsEndpoint.PATH) || Dashboard.serves(path)) {
            return Optional.empty();
        }
        return api != null && internal(path) && internal instanceof HeadAdmission heads ? heads.admit(head) : Optional.empty();
    }

    /** The API's limit for a request {@link #admit} let through; the node's own endpoints take none of their own. */
    @Override
    public long bodyBytesMax(HeadAdmission.Head head) {
        String path = head.path();
        if (path.equals(StatusEndpoint.PATH) || path.equals(MetricsEndpoint.PATH) || Dashboard.serves(path)) {
            return Long.MAX_VALUE;
        }
        return api != null && internal(path) && internal instanceof HeadAdmission heads ? heads.bodyBytesMax(head) : Long.MAX_VALUE;
    }

    /** The node-to-node plane's calls may take the server's in-flight reserve ({@code InternalApiHandler.priority}); nothing else. */
    @Override
    public boolean priority(HeadAdmission.Head head) {
        return api != null && internal(head.path()) && internal instanceof HeadAdmission heads && heads.priority(head);
    }

    /**
     * The requests that never block run on the event loop: the node-to-node plane's batches of
     * replica reads and writes ({@code InternalApiHandler.onLoop}) and the public API's plain reads
     * and writes of a key ({@link PublicApi#answersOnLoop}); none until the API is ready.
     */
    @Override
    public boolean onLoop(HeadAdmission.Head head) {
        if (api == null) {
            return false;
        }
        if (internal(head.path())) {
            return internal instanceof HeadAdmission heads && heads.onLoop(head);
        }
        return publicOnLoop && PublicApi.answersOnLoop(head);
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        switch (request.path()) {
            case StatusEndpoint.PATH -> {
                return status.handle(request);
            }
            case MetricsEndpoint.PATH -> {
                return metrics.handle(request);
            }
            default -> {
                if (Dashboard.serves(request.path())) {
                    return dashboard.handle(request);
                }
                HttpHandler current = api;
                if (current == null) {
                    return CompletableFuture.completedFuture(Response.text(503, "starting").withHeader("Retry-After", "1"));
                }
                if (internal(request.path())) {
                    HttpHandler plane = internal;
                    return plane != null ? plane.handle(request)
                            : CompletableFuture.completedFuture(Response.text(400, "unknown path " + request.path()));
                }
                return current.handle(request);
            }
        }
    }
}
