package io.ringkv.node;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.node.metrics.NodeMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /metrics}: the node's metrics in the Prometheus text format, for Prometheus to scrape
 * (and {@code ringkv status} to read). Served from the moment the port is bound. A node started
 * with {@code --metrics off} answers {@code 404} with a body that says so: there is nothing to
 * scrape there, and a scraper shows that status and message rather than an empty page it would
 * take for a node without traffic.
 *
 * <p>Threading: stateless; handler threads (a scrape reads RocksDB properties, which may block briefly).
 */
final class MetricsEndpoint implements HttpHandler {
    static final String PATH = "/metrics";

    /** The answer of a node without metrics. */
    static final String OFF = "metrics are off on this node (started with serve --metrics off)";

    private final NodeMetrics metrics;

    MetricsEndpoint(NodeMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public CompletionStage<Response> handle(Request request) {
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return CompletableFuture.completedFuture(Response.text(405, request.method() + " is not supported on "
                    + request.path()).withHeader("Allow", "GET, HEAD"));
        }
        if (!metrics.enabled()) {
            return CompletableFuture.completedFuture(Response.text(404, OFF));
        }
        return CompletableFuture.completedFuture(Response.of(200, metrics.scrape())
                .withHeader("Content-Type", NodeMetrics.CONTENT_TYPE)
                .withHeader("Cache-Control", "no-store"));
    }
}
