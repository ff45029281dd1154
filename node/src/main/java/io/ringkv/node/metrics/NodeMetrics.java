package io.ringkv.node.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ReplicaCallListener;
import io.ringkv.http.server.ExchangeListener;
import io.ringkv.http.server.HttpServer;
import io.ringkv.store.StorageEngine;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One node's metrics: a registry of its own (never the process-wide default one, so that several
 * nodes in one JVM, as tests run them, do not share or clash), the per-request recorders handed
 * to the server and the coordinator, and collectors that read the server's, the store's and the
 * cluster's counters when scraped.
 *
 * <pre>{@code
 * NodeMetrics metrics = new NodeMetrics();
 * HttpServer.start(config, handler, onLoopFailure, metrics.requestListener());
 * metrics.watch(server); metrics.watch(engine);
 * Cluster.start(settings, engine, clock, executor, metrics.replicaCallListener());
 * metrics.watch(cluster);
 * byte[] text = metrics.scrape();
 * }</pre>
 *
 * <p>Threading: thread-safe; {@code watch} once per component, from the starting thread.
 */
public final class NodeMetrics {

    /** The content type of {@link #scrape()}: Prometheus text format 0.0.4. */
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final RequestMetrics requests;
    private final ReplicaCallMetrics replicaCalls;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    public NodeMetrics() {
        JvmMetrics.builder().register(registry);
        requests = new RequestMetrics(registry);
        replicaCalls = new ReplicaCallMetrics(registry);
    }

    /** For the HTTP server: records every request the handler answered. */
    public ExchangeListener requestListener() {
        return requests;
    }

    /** For the coordinator: records every remote replica call. */
    public ReplicaCallListener replicaCallListener() {
        return replicaCalls;
    }

    public void watch(HttpServer server) {
        registry.register(new ServerCollector(server, requests));
    }

    public void watch(StorageEngine engine) {
        registry.register(new StorageCollector(engine));
    }

    public void watch(Cluster cluster) {
        registry.register(new ClusterCollector(cluster));
        registry.register(new InterNodeClientCollector(cluster));
    }

    /** Every family, in the Prometheus text format ({@link #CONTENT_TYPE}). */
    public byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32 * 1024);
        try {
            writer.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e);
        }
        return out.toByteArray();
    }
}
