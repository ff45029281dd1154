package io.ringkv.node;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MetadataGroup;
import io.ringkv.cluster.meta.MetadataSettings;
import io.ringkv.ops.JsonText;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's view of the cluster metadata for {@code /v0/status}: the newest metadata it knows
 * (its replica's last applied, or newer read from the leader while catching up) and the leader it knows, read without any Raft call, so the status answers the same
 * whether or not the metadata group has a leader. A node whose metadata group cannot start (its
 * directory unreadable, a damaged snapshot) still serves data, as the metadata is not on the data
 * path yet; its status then names the failure among its warnings.
 *
 * <p>Threading: the group or the failure is set once by the starting thread (volatile); reads
 * come from handler threads.
 */
final class MetadataStatus {

    /** The metadata group's directory under the node's data directory. */
    static final String DIRECTORY = "meta";

    private static final Logger log = LoggerFactory.getLogger(MetadataStatus.class);

    private final Cluster cluster;
    private volatile MetadataGroup group;
    private volatile String startFailure;

    private MetadataStatus(Cluster cluster) {
        this.cluster = cluster;
    }

    /**
     * Starts the node's part of the metadata group under {@code DATA/meta} on a thread of its own,
     * which ends when the group has started: loading and starting Ratis takes about a second, which
     * the node's start need not wait for, since nothing it serves uses the metadata yet. Until then
     * the status shows epoch 0 and no members. Never throws; a failure is logged and shown.
     */
    static MetadataStatus startInBackground(Cluster cluster, NodeConfig config, Runnable started) {
        MetadataStatus status = new MetadataStatus(cluster);
        MetadataSettings settings = MetadataSettings.defaults(config.dataDir().resolve(DIRECTORY)).withVoters(config.metaVoters());
        Thread starter = new Thread(() -> {
            if (status.start(cluster, settings)) {
                started.run();
            }
        }, "ringkv-metadata-start");
        starter.setDaemon(true);
        starter.start();
        return status;
    }

    /** @return whether the group started */
    private boolean start(Cluster cluster, MetadataSettings settings) {
        try {
            group = cluster.startMetadata(settings);
            return true;
        } catch (IllegalStateException closedMeanwhile) {
            log.debug("the node stopped before its metadata group started");
        } catch (IOException | RuntimeException e) {
            startFailure = "the metadata group did not start (" + e.getMessage() + "); data requests are served as usual";
            log.error("{}: check {}", startFailure, settings.directory().toAbsolutePath(), e);
        }
        return false;
    }

    /** What an operator must fix about the metadata, if anything. */
    Optional<String> warning() {
        String failed = startFailure;
        if (failed != null) {
            return Optional.of("metadata: " + failed);
        }
        MetadataGroup running = group;
        return running == null ? Optional.empty() : running.failure().map(failure -> "metadata: " + failure);
    }

    /** {@code {"epoch":..,"leader":..,"self":..,"role":..,"replicationFactor":..,"members":[{"id","url","state"}]}}. */
    String json() {
        MetadataGroup group = this.group;
        // What placement follows: the replica's applied state, or newer from the leader while catching up.
        ClusterMetadata metadata = cluster.knownMetadata().current();
        StringBuilder out = new StringBuilder(256)
                .append("{\"epoch\":").append(metadata.epoch())
                .append(",\"leader\":").append(JsonText.string(group == null ? null : group.leader().orElse(null)))
                .append(",\"self\":").append(JsonText.string(group == null ? Member.idOf(cluster.topology().self()) : group.selfId()))
                // A joined node is outside the group until the leader adds its server (and while it starts).
                .append(",\"role\":").append(JsonText.string(group == null ? (cluster.join().isPresent() ? "outside" : null)
                        : group.role().orElse(cluster.join().isPresent() ? "outside" : null)))
                .append(",\"replicationFactor\":").append(metadata.replicationFactor())
                .append(",\"members\":[");
        for (int i = 0; i < metadata.members().size(); i++) {
            Member member = metadata.members().get(i);
            out.append(i == 0 ? "" : ",").append("{\"id\":").append(JsonText.string(member.id()))
                    .append(",\"url\":").append(JsonText.string(member.url()))
                    .append(",\"state\":").append(JsonText.string(member.state().label()))
                    .append(",\"index\":").append(member.index()).append('}');
        }
        out.append("]");
        io.ringkv.cluster.member.MembershipProgress own = cluster.membershipProgress();
        return out.append(",\"membership\":").append(own.toJson(System.currentTimeMillis())).append('}').toString();
    }
}
