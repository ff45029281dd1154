package io.ringkv.node.dashboard;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.ops.NodeSample;
import io.ringkv.ops.PrometheusText;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Reads what the dashboard shows of one node: its {@code /v0/status} and {@code /metrics} (as a
 * {@link NodeSample}, the same reading {@code ringkv status} takes) and its latest events. This
 * node is read in process; a peer over the inter-node client from its public endpoints, signed
 * with the cluster secret for peers that check tokens (the node's {@code PeerSignature}), the three requests at once, each bounded by {@link #TIMEOUT}: a peer that does not answer in time is
 * read as down, never waited for longer.
 *
 * <p>Threading: {@link #read} from any thread, never blocks. Parsing (a metrics page is tens of
 * KB) runs on the given executor, not on the inter-node client's network thread that completes
 * the requests (it carries the replica calls). The returned future never completes exceptionally
 * unless that executor refuses work (the node is closing).
 */
public final class NodeReader {

    /** Per request to a peer; the dashboard is meant to be a few seconds behind at most. */
    static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** The whole reading of a peer: its three requests, with a margin over their own timeout. */
    private static final Duration READING_TIMEOUT = TIMEOUT.multipliedBy(2);

    /** A node's latest events ({@link RecentEvents}), as its dashboard API serves them. */
    static final String EVENTS_PATH = "/ui/api/events";

    /**
     * One node as read at one moment.
     *
     * @param sample its status and metrics; status 0 when it did not answer
     * @param events its latest events, the latest first (empty when it did not answer)
     */
    record Reading(ClusterNode node, NodeSample sample, List<RecentEvents.Event> events) {
    }

    private final Cluster cluster;
    private final Supplier<NodeSample> self;
    private final RecentEvents selfEvents;
    private final Executor executor;
    private final BiFunction<String, String, Map<String, String>> credentials;

    /**
     * @param self       reads this node's own sample in process
     * @param selfEvents this node's events
     * @param executor   parses and reads this node's metrics (may touch RocksDB properties)
     * @param credentials the header fields that let a peer (its id) answer a GET of a target on its
     *                    admin pages ({@code PeerSignature.sign}; none without a cluster secret)
     */
    NodeReader(Cluster cluster, Supplier<NodeSample> self, RecentEvents selfEvents, Executor executor,
               BiFunction<String, String, Map<String, String>> credentials) {
        this.credentials = credentials;
        this.cluster = cluster;
        this.self = self;
        this.selfEvents = selfEvents;
        this.executor = executor;
    }

    CompletableFuture<Reading> read(ClusterNode node) {
        if (cluster.topology().isSelf(node)) {
            return CompletableFuture.supplyAsync(() -> new Reading(node, self.get(), selfEvents.latest()), executor);
        }
        CompletableFuture<Fetched> status = fetch(node, "/v0/status");
        CompletableFuture<Fetched> metrics = fetch(node, "/metrics");
        CompletableFuture<Fetched> events = fetch(node, EVENTS_PATH);
        return CompletableFuture.allOf(status, metrics, events)
                .thenApplyAsync(ignored -> reading(node, status.join(), metrics.join(), events.join()), executor);
    }

    private static Reading reading(ClusterNode node, Fetched status, Fetched metrics, Fetched events) {
        if (status.failure() != null) {
            return new Reading(node, new NodeSample(node.id(), 0, "unreachable: " + status.failure(), null, status.atNanos()),
                    List.of());
        }
        PrometheusText parsed = metrics.status() == 200 ? PrometheusText.parse(metrics.text()) : null;
        List<RecentEvents.Event> latest = events.status() == 200 ? RecentEvents.parse(events.text()) : List.of();
        return new Reading(node, new NodeSample(node.id(), status.status(), status.text(), parsed, metrics.atNanos()), latest);
    }

    private CompletableFuture<Fetched> fetch(ClusterNode node, String path) {
        return cluster.getPublic(node, path, TIMEOUT, credentials.apply(node.id(), path))
                .handle((response, error) -> error == null ? Fetched.of(response) : Fetched.failed(error))
                .completeOnTimeout(Fetched.failed("no answer in " + READING_TIMEOUT.toMillis() + " ms"),
                        READING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One answer, or why there was none; the body is decoded later, on the executor. */
    private record Fetched(int status, byte[] body, String failure, long atNanos) {
        static Fetched of(HttpResponse<byte[]> response) {
            return new Fetched(response.statusCode(), response.body(), null, System.nanoTime());
        }

        static Fetched failed(Throwable error) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            return failed(cause.getMessage() == null ? cause.getClass().getSimpleName()
                    : cause.getClass().getSimpleName() + ": " + cause.getMessage());
        }

        static Fetched failed(String why) {
            return new Fetched(0, null, why, System.nanoTime());
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }
}
