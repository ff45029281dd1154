package io.ringkv.node.dashboard;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.PeerHealth;
import io.ringkv.ops.JsonText;
import io.ringkv.ops.MetadataTable;
import io.ringkv.ops.NodeSample;
import io.ringkv.ops.RequestRates;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * The cluster as this node sees it, for the dashboard: every node's health, request rate, p50 and
 * p99, the latest events of all of them, and the last minutes of rates and latencies for charts.
 *
 * <p>Snapshots are taken on demand, when a dashboard asks, and shared: a snapshot younger than
 * {@link #REUSE_NANOS} (or still being taken) is what every asker gets, so any number of open
 * dashboards cost one reading of each node per second at most, and nobody watching costs nothing.
 * Rates and latencies are the differences between a node's reading and its previous one
 * ({@link RequestRates}); the charts' history is kept here rather than only in the browser, so a
 * reloaded page (or a screenshot) shows the minutes already sampled.
 *
 * <p>Threading: {@link #current} from any thread (handler threads), briefly synchronized, never
 * blocks. At most one snapshot is being taken at a time, and its readings are combined on the
 * given executor, so the previous readings and the history are only touched by one snapshot at a
 * time, each after the last (the future's completion orders them). Snapshots are immutable.
 */
public final class ClusterOverview {

    /** A snapshot this young is reused rather than a new one taken (dashboards poll every second). */
    public static final long REUSE_NANOS = Duration.ofMillis(900).toNanos();
    /** How far back the charts go. */
    static final Duration HISTORY = Duration.ofMinutes(5);
    /** Bounds the history whatever the polling rate. */
    static final int HISTORY_POINTS_MAX = 600;
    /**
     * A node's previous reading older than this gives no rate: the first snapshot after nobody
     * watched for a while would otherwise show the average over that while as if it were now.
     */
    static final long RATE_INTERVAL_MAX_NANOS = Duration.ofSeconds(10).toNanos();
    /** Events shown, the latest of all nodes. */
    static final int EVENTS_SHOWN = 50;

    /**
     * One node's row.
     *
     * @param health         {@code up}, {@code starting}, {@code stopping} or {@code down} (did not answer)
     * @param detail         why it is down, or null
     * @param seenBySelf     {@code self}, or what this node's peer health says: {@code up}, {@code down}, {@code unknown}
     * @param seenForSeconds since when, for a peer; null for self
     * @param perSecond      data requests per second since the previous reading, null when unknown
     * @param p50Millis      estimated median latency of those requests, null without requests
     */
    record NodeRow(String node, boolean self, String health, String detail, String seenBySelf, Long seenForSeconds,
                   Long uptimeSeconds, String version, List<String> warnings, Double perSecond, Double p50Millis,
                   Double p99Millis, Long diskBytes, Long metadataEpoch, String member) {
    }

    /**
     * The node's member state as this node's metadata has it ({@code joining}, {@code normal},
     * {@code leaving}), and, while the node itself joins or leaves, its step's phase and the bytes
     * moved so far (from its status), with the time left once there is an estimate: e.g.
     * {@code joining: streaming, 12.3 MB, about 4 s left}.
     */
    static String member(String state, String statusBody) {
        return MetadataTable.ownStep(statusBody).filter(step -> !step.phase().equals("done"))
                .map(step -> state + ": " + step.phase() + ", " + String.format(Locale.ROOT, "%.1f MB", step.bytes() / 1e6)
                        + MetadataTable.timeLeft(step.json()))
                .orElse(state);
    }

    /** The epoch of the cluster metadata in a node's status; null when it names none (not answered, an older node). */
    static Long metadataEpoch(String statusBody) {
        int at = statusBody.indexOf("\"metadata\":{");
        return at < 0 ? null : JsonText.numberField(statusBody.substring(at), "epoch").map(Double::longValue).orElse(null);
    }

    /** One snapshot's rates and latencies, indexed like the cluster's node list; NaN where unknown. */
    record Point(long atMillis, double[] perSecond, double[] p50Millis, double[] p99Millis) {
    }

    /** An event and the node that recorded it. */
    record NodeEvent(String node, RecentEvents.Event event) {
    }

    /** @param history oldest first, at most {@link #HISTORY} back, this snapshot's point last */
    record Snapshot(String self, long atMillis, List<NodeRow> nodes, List<NodeEvent> events, List<Point> history) {
    }

    private final Cluster cluster;
    private final NodeReader reader;
    private final Executor executor;
    private final LongSupplier wallMillis;

    private CompletableFuture<Snapshot> latest; // guarded by this
    private long latestStartedNanos; // guarded by this

    // Touched by one snapshot's combining step at a time (see the threading note).
    private final Map<ClusterNode, NodeSample> previous = new HashMap<>();
    private final ArrayDeque<Point> history = new ArrayDeque<>();

    ClusterOverview(Cluster cluster, NodeReader reader, Executor executor, LongSupplier wallMillis) {
        this.cluster = cluster;
        this.reader = reader;
        this.executor = executor;
        this.wallMillis = wallMillis;
    }

    /** A snapshot at most {@link #REUSE_NANOS} old, or the one being taken, or a new one. */
    synchronized CompletableFuture<Snapshot> current() {
        long now = System.nanoTime();
        if (latest != null && (!latest.isDone() || now - latestStartedNanos < REUSE_NANOS)) {
            return latest;
        }
        latestStartedNanos = now;
        latest = take();
        return latest;
    }

    private CompletableFuture<Snapshot> take() {
        List<CompletableFuture<NodeReader.Reading>> readings = cluster.topology().all().stream().map(reader::read).toList();
        return CompletableFuture.allOf(readings.toArray(CompletableFuture[]::new))
                .thenApplyAsync(ignored -> combine(readings.stream().map(CompletableFuture::join).toList()), executor);
    }

    private Snapshot combine(List<NodeReader.Reading> readings) {
        long at = wallMillis.getAsLong();
        Map<String, PeerHealth.PeerStatus> seen = new HashMap<>();
        for (PeerHealth.PeerStatus peer : cluster.peerHealth().peers()) {
            seen.put(peer.id(), peer);
        }
        List<NodeRow> rows = new ArrayList<>(readings.size());
        List<NodeEvent> events = new ArrayList<>();
        Point point = new Point(at, new double[readings.size()], new double[readings.size()], new double[readings.size()]);
        for (int i = 0; i < readings.size(); i++) {
            NodeReader.Reading reading = readings.get(i);
            NodeSample now = reading.sample();
            NodeSample before = previous.get(reading.node());
            Optional<RequestRates> rates = before == null || now.atNanos() - before.atNanos() > RATE_INTERVAL_MAX_NANOS
                    ? Optional.empty() : RequestRates.between(before, now);
            if (now.metrics() != null) {
                previous.put(reading.node(), now);
            } else {
                previous.remove(reading.node()); // a node back from down starts over: its counters did too
            }
            NodeRow row = row(reading, seen.get(reading.node().id()), rates);
            rows.add(row);
            point.perSecond()[i] = row.perSecond() == null ? Double.NaN : row.perSecond();
            point.p50Millis()[i] = row.p50Millis() == null ? Double.NaN : row.p50Millis();
            point.p99Millis()[i] = row.p99Millis() == null ? Double.NaN : row.p99Millis();
            reading.events().forEach(event -> events.add(new NodeEvent(reading.node().id(), event)));
        }
        events.sort(Comparator.comparingLong((NodeEvent e) -> e.event().atMillis()).reversed());
        history.addLast(point);
        while (history.size() > HISTORY_POINTS_MAX || history.getFirst().atMillis() < at - HISTORY.toMillis()) {
            history.removeFirst();
        }
        return new Snapshot(cluster.topology().self().id(), at, List.copyOf(rows),
                List.copyOf(events.subList(0, Math.min(EVENTS_SHOWN, events.size()))), List.copyOf(history));
    }

    private NodeRow row(NodeReader.Reading reading, PeerHealth.PeerStatus seen, Optional<RequestRates> rates) {
        NodeSample sample = reading.sample();
        boolean self = cluster.topology().isSelf(reading.node());
        String seenBySelf = self ? "self" : seen == null ? null : seen.state().name().toLowerCase(Locale.ROOT);
        Long seenFor = self || seen == null ? null : Math.max(0, wallMillis.getAsLong() - seen.sinceMillis()) / 1000;
        Long disk = sample.metrics() != null && sample.metrics().has("ringkv_storage_disk_bytes")
                ? (long) sample.metrics().sum("ringkv_storage_disk_bytes", s -> true) : null;
        String body = sample.answered() ? sample.statusBody() : "";
        return new NodeRow(reading.node().id(), self, sample.state(), sample.answered() ? null : sample.statusBody(),
                seenBySelf, seenFor, sample.uptimeSeconds().orElse(null),
                JsonText.stringField(body, "version").orElse(null),
                JsonText.stringArrayField(body, "warnings").orElse(List.of()),
                rates.map(RequestRates::perSecond).orElse(null),
                rates.map(r -> millis(r.quantileSeconds(0.5))).orElse(null),
                rates.map(r -> millis(r.quantileSeconds(0.99))).orElse(null),
                disk,
                metadataEpoch(body),
                member(cluster.topology().view().state(reading.node()).map(state -> state.label()).orElse("-"), body));
    }

    private static Double millis(OptionalDouble seconds) {
        return seconds.isPresent() ? seconds.getAsDouble() * 1000 : null;
    }
}
