package io.ringkv.node.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ReplicaCallListener;
import io.ringkv.http.server.ExchangeListener;
import io.ringkv.http.server.HttpServer;
import io.ringkv.node.access.TokenRegistry;
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
 * <p>{@link #off()} is a node without metrics ({@code serve --metrics off}): its recorders are the
 * server's and the coordinator's "tell nobody" listeners, so a request does no metrics work at all,
 * nothing is collected, and {@link #scrape()} has nothing to give ({@link #enabled()} says so).
 * It exists so that the cost of metrics can be measured against nothing.
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
    /** Null when off, as is {@link #replicaCalls}. */
    private final RequestMetrics requests;
    private final ReplicaCallMetrics replicaCalls;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

    /** Metrics on. */
    public NodeMetrics() {
        this(true);
    }

    private NodeMetrics(boolean on) {
        if (on) {
            JvmMetrics.builder().register(registry);
            requests = new RequestMetrics(registry);
            replicaCalls = new ReplicaCallMetrics(registry);
        } else {
            requests = null;
            replicaCalls = null;
        }
    }

    /** No metrics: nothing recorded, nothing collected. */
    public static NodeMetrics off() {
        return new NodeMetrics(false);
    }

    /** Whether this node records metrics; {@link #scrape()} only then. */
    public boolean enabled() {
        return requests != null;
    }

    /** For the HTTP server: records every request the handler answered ({@link ExchangeListener#NONE} when off). */
    public ExchangeListener requestListener() {
        return enabled() ? requests : ExchangeListener.NONE;
    }

    /** For the coordinator: records every remote replica call ({@link ReplicaCallListener#NONE} when off). */
    public ReplicaCallListener replicaCallListener() {
        return enabled() ? replicaCalls : ReplicaCallListener.NONE;
    }

    public void watch(HttpServer server) {
        if (enabled()) {
            registry.register(new ServerCollector(server, requests));
        }
    }

    public void watch(StorageEngine engine) {
        if (enabled()) {
            registry.register(new StorageCollector(engine));
        }
    }

    public void watch(TokenRegistry tokens) {
        if (enabled()) {
            registry.register(new AccessCollector(tokens));
        }
    }

    public void watch(Cluster cluster) {
        if (enabled()) {
            registry.register(new ClusterCollector(cluster));
            registry.register(new InterNodeClientCollector(cluster));
        }
    }

    /**
     * Every family, in the Prometheus text format ({@link #CONTENT_TYPE}).
     *
     * @throws IllegalStateException when metrics are off
     */
    public byte[] scrape() {
        return text(snapshot());
    }

    /**
     * Every family's current values, for a reader in this process (the dashboard's own node):
     * what {@link #scrape()} writes, not written.
     *
     * @throws IllegalStateException when metrics are off
     */
    public MetricSnapshots snapshot() {
        if (!enabled()) {
            throw new IllegalStateException("metrics are off on this node");
        }
        return registry.scrape();
    }

    /** {@code snapshots} in the Prometheus text format ({@link #CONTENT_TYPE}), as {@link #scrape()} writes them. */
    public byte[] text(MetricSnapshots snapshots) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(32 * 1024);
        try {
            writer.write(out, snapshots);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e);
        }
        return out.toByteArray();
    }
}
