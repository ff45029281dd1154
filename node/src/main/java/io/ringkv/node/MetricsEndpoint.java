package io.ringkv.node;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.node.metrics.NodeMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /metrics}: the node's metrics in the Prometheus text format, for Prometheus to scrape
 * (and {@code ringkv status} to read). Served from the moment the port is bound.
 *
 * <p>Threading: stateless; handler threads (a scrape reads RocksDB properties, which may block briefly).
 */
final class MetricsEndpoint implements HttpHandler {

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
        return CompletableFuture.completedFuture(Response.of(200, metrics.scrape())
                .withHeader("Content-Type", NodeMetrics.CONTENT_TYPE)
                .withHeader("Cache-Control", "no-store"));
    }
}
