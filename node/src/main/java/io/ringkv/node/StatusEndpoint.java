package io.ringkv.node;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.PeerHealth;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.ops.JsonText;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /v0/status}: {@code 200} while the node serves, {@code 503} while it starts or stops
 * or drains before it leaves the cluster ({@code "state":"leaving"}),
 * so load balancers and orchestrators can use it as a health check as it is. The body is a small
 * JSON object either way:
 *
 * <pre>{@code
 * {"node":"http://127.0.0.1:8080","state":"serving","version":"0.1.0","uptimeSeconds":42,"servingSeconds":40,
 *  "topology":"5f0c...","warnings":[],
 *  "peers":[{"node":"http://127.0.0.1:8081","state":"up","since":"2026-...Z","forSeconds":40,"lastFailure":null}],
 *  "metadata":{"epoch":1,"leader":"n1f0c...","self":"n1f0c...","role":"leader","replicationFactor":3,
 *              "members":[{"id":"n1f0c...","url":"http://127.0.0.1:8080","state":"normal"}, ...]}}
 * }</pre>
 * {@code servingSeconds} counts from the moment the node began serving (0 while it starts; a
 * starting node's peers ask it to tell a running cluster from one starting with them, see
 * {@link ServingPeers}); {@code topology} is the node list's fingerprint (null until the cluster is joined), {@code warnings}
 * name what an operator must fix (a peer with another node list, a clock behind its peers), and
 * each peer is {@code up}, {@code down} or {@code unknown} as this node saw it, with since when.
 * {@code metadata} is the newest cluster metadata this node knows, as applied from its replica of the
 * log or read from the leader while catching up with a peer ahead ({@link MetadataStatus}):
 * epoch 0 and no members until the group's first leader formed it; {@code leader} is null while
 * this node knows of no leader, which changes nothing for data requests.
 *
 * <p>Threading: {@link #handle} on handler threads; the node URL and cluster are set once by the
 * starting thread.
 */
final class StatusEndpoint implements HttpHandler {
    /** The health check: open to anyone, also when the node checks tokens ({@link AccessPolicy}). */
    static final String PATH = "/v0/status";

    private final NodeLifecycle lifecycle;
    private volatile String nodeUrl;
    private volatile Cluster cluster;
    private volatile MetadataStatus metadata;

    StatusEndpoint(NodeLifecycle lifecycle) {
        this.lifecycle = lifecycle;
    }

    void nodeUrl(String url) {
        this.nodeUrl = url;
    }

    void cluster(Cluster joined) {
        this.cluster = joined;
    }

    void metadata(MetadataStatus started) {
        this.metadata = started;
    }

    @Override
    public CompletionStage<Response> handle(Request request) {
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return CompletableFuture.completedFuture(Response.text(405, request.method() + " is not supported on "
                    + request.path()).withHeader("Allow", "GET, HEAD"));
        }
        NodeLifecycle.Phase phase = lifecycle.phase();
        boolean ok = phase == NodeLifecycle.Phase.SERVING && !leaving();
        Response response = Response.of(ok ? 200 : 503, json(phase).getBytes(StandardCharsets.UTF_8))
                .withHeader("Content-Type", "application/json")
                .withHeader("Cache-Control", "no-store");
        if (!ok) {
            response = response.withHeader("Retry-After", "1");
        }
        return CompletableFuture.completedFuture(response);
    }

    /** Whether this node drains before it leaves the cluster: clients should move away ({@code 503 leaving}). */
    private boolean leaving() {
        Cluster joined = cluster;
        return joined != null && joined.decommission().map(io.ringkv.cluster.member.Decommission::draining).orElse(false);
    }

    String json(NodeLifecycle.Phase phase) {
        Cluster joined = cluster;
        StringBuilder out = new StringBuilder(256);
        out.append("{\"node\":").append(JsonText.string(nodeUrl))
                .append(",\"state\":").append(JsonText.string(phase == NodeLifecycle.Phase.SERVING && leaving() ? "leaving"
                        : phase.label()))
                .append(",\"version\":").append(JsonText.string(Node.VERSION))
                .append(",\"uptimeSeconds\":").append(lifecycle.uptimeMillis() / 1000)
                .append(",\"servingSeconds\":").append(lifecycle.servingMillis() / 1000)
                .append(",\"topology\":").append(JsonText.string(joined == null ? null : joined.topology().fingerprint()))
                .append(",\"warnings\":[");
        MetadataStatus meta = metadata;
        List<String> warnings = joined == null ? List.of() : warnings(joined, meta);
        for (int i = 0; i < warnings.size(); i++) {
            out.append(i == 0 ? "" : ",").append(JsonText.string(warnings.get(i)));
        }
        out.append("],\"peers\":[");
        if (joined != null) {
            long now = System.currentTimeMillis();
            List<PeerHealth.PeerStatus> peers = joined.peerHealth().peers();
            for (int i = 0; i < peers.size(); i++) {
                PeerHealth.PeerStatus peer = peers.get(i);
                out.append(i == 0 ? "" : ",")
                        .append("{\"node\":").append(JsonText.string(peer.id()))
                        .append(",\"state\":").append(JsonText.string(peer.state().name().toLowerCase(java.util.Locale.ROOT)))
                        .append(",\"since\":").append(JsonText.string(Instant.ofEpochMilli(peer.sinceMillis()).toString()))
                        .append(",\"forSeconds\":").append(Math.max(0, now - peer.sinceMillis()) / 1000)
                        .append(",\"lastFailure\":").append(JsonText.string(peer.lastFailure()))
                        .append('}');
            }
        }
        out.append("],\"metadata\":").append(meta == null ? "null" : meta.json());
        return out.append('}').toString();
    }

    private static List<String> warnings(Cluster cluster, MetadataStatus metadata) {
        List<String> warnings = new ArrayList<>();
        if (metadata != null) {
            metadata.warning().ifPresent(warnings::add);
        }
        cluster.topologyWatch().lastMismatch().ifPresent(warnings::add);
        cluster.clockSkew().writeRefusal().ifPresent(reason -> warnings.add("clock: " + reason
                + "; writes through this node are refused"));
        return warnings;
    }
}
