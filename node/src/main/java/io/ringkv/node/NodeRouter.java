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
 * API's bodies are bounded by {@code --max-body} ({@code 413} at the head when announced longer,
 * and once a chunked one passes it); the status, metrics and dashboard take no body worth
 * refusing early. A query that names a parameter twice is answered {@code 400} there too, for
 * every route that reads parameters (the node-to-node plane's after its own checks). The server itself takes {@code --max-body} plus
 * {@link InternalProtocol#ONE_WRITE_ENVELOPE_BYTES}, what a peer's batch of one write of the
 * largest value adds to it.
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
    /** The public API's body limit, {@code --max-body}. */
    private final long publicBodyBytesMax;

    /** A router whose public API takes bodies of any length the server takes. */
    NodeRouter(HttpHandler status, HttpHandler metrics, HttpHandler dashboard) {
        this(status, metrics, dashboard, Long.MAX_VALUE);
    }

    /** @param publicBodyBytesMax the public API's body limit ({@code --max-body}) */
    NodeRouter(HttpHandler status, HttpHandler metrics, HttpHandler dashboard, long publicBodyBytesMax) {
        this.status = status;
        this.metrics = metrics;
        this.dashboard = dashboard;
        this.publicBodyBytesMax = publicBodyBytesMax;
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
        return Optional.ofNullable(verdict(head).answer());
    }

    /**
     * As {@link #admit}; an internal request the node-to-node plane let through carries that
     * plane's note to its handler (the proof it checked at the head).
     */
    @Override
    public HeadAdmission.Verdict verdict(HeadAdmission.Head head) {
        if (internal(head.path())) {
            // The plane's own checks first: a stranger learns nothing of how it reads a query.
            HeadAdmission.Verdict plane = api != null && internal instanceof HeadAdmission heads
                    ? heads.verdict(head) : HeadAdmission.Verdict.PASS;
            if (plane.answer() != null) {
                return plane;
            }
            Optional<Response> ambiguous = repeatedParameter(head.query());
            return ambiguous.isPresent() ? HeadAdmission.Verdict.answer(ambiguous.get()) : plane;
        }
        Optional<Response> answer = publicAdmit(head);
        return answer.isPresent() ? HeadAdmission.Verdict.answer(answer.get()) : HeadAdmission.Verdict.PASS;
    }

    /** The head checks of everything but the internal plane. */
    private Optional<Response> publicAdmit(HeadAdmission.Head head) {
        String path = head.path();
        if (path.equals(StatusEndpoint.PATH) || path.equals(MetricsEndpoint.PATH)) {
            return Optional.empty();
        }
        Optional<Response> ambiguous = repeatedParameter(head.query());
        if (ambiguous.isPresent() || Dashboard.serves(path)) {
            return ambiguous;
        }
        return head.contentLength() > publicBodyBytesMax
                ? Optional.of(Response.text(413, "request body too large: this request takes at most " + publicBodyBytesMax
                        + " bytes; this one announces " + head.contentLength()))
                : Optional.empty();
    }

    /**
     * 400 for a query that names a parameter twice: the API, the dashboard and the node-to-node
     * plane read the first value, and whatever sits in front of the node may read another.
     */
    private static Optional<Response> repeatedParameter(String query) {
        try {
            return Request.repeatedParameter(query).map(name -> Response.text(400, "query parameter '" + name
                    + "' is given more than once; give each parameter at most once"));
        } catch (IllegalArgumentException malformed) {
            return Optional.of(Response.text(400, malformed.getMessage()));
        }
    }

    /** The API's limit for a request {@link #admit} let through; the node's own endpoints take none of their own. */
    @Override
    public long bodyBytesMax(HeadAdmission.Head head) {
        String path = head.path();
        if (path.equals(StatusEndpoint.PATH) || path.equals(MetricsEndpoint.PATH) || Dashboard.serves(path)) {
            return Long.MAX_VALUE;
        }
        if (!internal(path)) {
            return publicBodyBytesMax;
        }
        return api != null && internal instanceof HeadAdmission heads ? heads.bodyBytesMax(head) : Long.MAX_VALUE;
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
