package io.ringkv.node.dashboard;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.KeyReplicas;
import io.ringkv.cluster.ReplicationParams;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.ops.JsonText;
import io.ringkv.ops.NodeSample;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * The dashboard's JSON, under {@code /ui/api/}; read-only, {@code GET} only ({@code 405} with
 * {@code Allow} otherwise), parameters checked ({@code 400} with a message):
 *
 * <ul>
 *   <li>{@code cluster[?since=MILLIS]}: the cluster as this node sees it ({@link OverviewJson});
 *       {@code since} leaves out the history points the page already has.
 *   <li>{@code key?id=KEY}: what each node holds for a key, in its replica order: a value (its
 *       size, never its bytes), a tombstone, nothing, or why the read failed; with the version's
 *       HLC timestamp, its wall time and the node that stamped it. {@code id} as in
 *       {@code /v0/entity}. Read through the cluster's replica reads ({@link KeyReplicas}), which
 *       only read: this reveals versions of a key that {@code GET /v0/entity} would return
 *       anyway, and writes nothing. The internal read has no head-only form, so each node sends
 *       the whole value: a lookup of a large value costs its size once per node.
 *   <li>{@code events}: this node's latest errors ({@link RecentEvents}), which the node serving a
 *       dashboard gathers from its peers.
 * </ul>
 *
 * <p>Threading: stateless; {@link #handle} on handler threads, never blocking on a peer: the
 * answers complete when the peers' do (each bounded by a timeout).
 */
public final class DashboardApi implements HttpHandler {

    static final String PREFIX = "/ui/api/";
    /** Longest accepted {@code since}: 18 digits stay below {@code Long.MAX_VALUE}. */
    private static final int SINCE_DIGITS_MAX = 18;

    private final Cluster cluster;
    private final ClusterOverview overview;
    private final RecentEvents events;
    private final int keyBytesMax;

    /**
     * The dashboard's data: this node read in process by {@code self}, its peers over the
     * inter-node client ({@link NodeReader}), every snapshot built on {@code work}.
     *
     * @param credentials the header fields that let a peer answer a read of its admin pages
     * @param keyBytesMax the public API's longest key
     */
    public static DashboardApi of(Cluster cluster, Supplier<NodeSample> self, RecentEvents events, Executor work,
                                  BiFunction<String, String, Map<String, String>> credentials, int keyBytesMax) {
        NodeReader reader = new NodeReader(cluster, self, events, work, credentials);
        return new DashboardApi(cluster, new ClusterOverview(cluster, reader, work, System::currentTimeMillis), events,
                keyBytesMax);
    }

    /**
     * @param keyBytesMax the public API's longest key: a key lookup refuses a longer one as the
     *                    API would (given, not read from the API: the dashboard does not depend on it)
     */
    DashboardApi(Cluster cluster, ClusterOverview overview, RecentEvents events, int keyBytesMax) {
        this.cluster = cluster;
        this.overview = overview;
        this.events = events;
        this.keyBytesMax = keyBytesMax;
    }

    @Override
    public CompletionStage<Response> handle(Request request) {
        String name = request.path().substring(PREFIX.length());
        if (!name.equals("cluster") && !name.equals("key") && !name.equals("events")) {
            return done(Response.text(404, "no such dashboard endpoint: " + request.path()));
        }
        if (!request.method().equals("GET")) {
            return done(Response.text(405, request.method() + " is not supported on " + request.path()).withHeader("Allow", "GET"));
        }
        try {
            return switch (name) {
                case "cluster" -> clusterView(request);
                case "key" -> key(request);
                default -> done(json("{\"node\":" + JsonText.string(cluster.topology().self().id()) + ",\"events\":"
                        + RecentEvents.toJson(events.latest()) + "}"));
            };
        } catch (IllegalArgumentException badParameter) {
            return done(Response.text(400, badParameter.getMessage()));
        }
    }

    private CompletionStage<Response> clusterView(Request request) {
        String sinceText;
        try {
            sinceText = request.queryParam("since").orElse(null);
        } catch (IllegalArgumentException malformed) {
            throw new IllegalArgumentException("query parameter 'since': " + malformed.getMessage(), malformed);
        }
        long since = sinceText == null ? -1 : since(sinceText);
        return overview.current().thenApply(snapshot -> json(OverviewJson.write(snapshot, since)));
    }

    private static long since(String text) {
        if (text.isEmpty() || text.length() > SINCE_DIGITS_MAX || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("since must be a time in epoch milliseconds (digits only), got '" + text + "'");
        }
        return Long.parseLong(text);
    }

    private CompletionStage<Response> key(Request request) {
        byte[] key;
        try {
            key = request.queryParamBytes("id").orElse(new byte[0]);
        } catch (IllegalArgumentException malformed) {
            throw new IllegalArgumentException("query parameter 'id': " + malformed.getMessage(), malformed);
        }
        if (key.length == 0) {
            throw new IllegalArgumentException("query parameter 'id' is required and must not be empty");
        }
        if (key.length > keyBytesMax) {
            throw new IllegalArgumentException("query parameter 'id' is " + key.length + " bytes; keys are at most "
                    + keyBytesMax + " bytes");
        }
        return cluster.keyReplicas().read(key).thenApply(copies -> json(keyJson(key, copies)));
    }

    private String keyJson(byte[] key, List<KeyReplicas.Copy> copies) {
        // Timestamps carry the index of the node that stamped them among the sorted node ids.
        List<String> sortedIds = cluster.topology().all().stream().map(ClusterNode::id).sorted().toList();
        StringBuilder out = new StringBuilder(256 + copies.size() * 256)
                .append("{\"key\":").append(JsonText.string(new String(key, StandardCharsets.UTF_8)))
                .append(",\"defaultReplicas\":").append(JsonText.string(ReplicationParams.defaultFor(cluster.replicationFactor().current()).toString()))
                .append(",\"replicas\":[");
        for (int i = 0; i < copies.size(); i++) {
            KeyReplicas.Copy copy = copies.get(i);
            Record record = copy.failed() ? null : copy.record().orElse(null);
            String holds = copy.failed() ? "error" : record == null ? "absent" : record.tombstone() ? "tombstone" : "value";
            out.append(i == 0 ? "" : ",")
                    .append("{\"node\":").append(JsonText.string(copy.node().id()))
                    .append(",\"rank\":").append(copy.rank())
                    .append(",\"holds\":").append(JsonText.string(holds));
            if (record != null) {
                int stampedBy = HybridLogicalClock.nodeOf(record.timestamp());
                // A string: HLC timestamps exceed the integers a JavaScript number holds exactly.
                out.append(",\"timestamp\":").append(JsonText.string(Long.toString(record.timestamp())))
                        .append(",\"writtenAt\":").append(JsonText.string(
                                Instant.ofEpochMilli(HybridLogicalClock.millisOf(record.timestamp())).toString()))
                        .append(",\"stampedBy\":").append(JsonText.string(stampedBy < sortedIds.size() ? sortedIds.get(stampedBy) : null))
                        .append(",\"valueBytes\":").append(record.tombstone() ? "null" : Integer.toString(record.value().length));
            } else {
                out.append(",\"timestamp\":null,\"writtenAt\":null,\"stampedBy\":null,\"valueBytes\":null");
            }
            out.append(",\"error\":").append(JsonText.string(copy.failure())).append('}');
        }
        return out.append("]}").toString();
    }

    private static Response json(String body) {
        return Response.of(200, body.getBytes(StandardCharsets.UTF_8))
                .withHeader("Content-Type", "application/json")
                .withHeader("Cache-Control", "no-store");
    }

    private static CompletionStage<Response> done(Response response) {
        return CompletableFuture.completedFuture(response);
    }
}
