package io.ringkv.node;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MetadataGroup;
import io.ringkv.cluster.meta.MetadataSettings;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's view of the cluster metadata for {@code /v0/status}: this replica's last applied
 * metadata and the leader it knows, read without any Raft call, so the status answers the same
 * whether or not the metadata group has a leader. A node whose metadata group cannot start (its
 * directory unreadable, a damaged snapshot) still serves data, as the metadata is not on the data
 * path yet; its status then names the failure among its warnings.
 *
 * <p>Threading: immutable after {@link #start}; reads from any thread.
 */
final class MetadataStatus {

    private static final Logger log = LoggerFactory.getLogger(MetadataStatus.class);

    private final MetadataGroup group;
    private final String startFailure;

    private MetadataStatus(MetadataGroup group, String startFailure) {
        this.group = group;
        this.startFailure = startFailure;
    }

    /** Starts the node's part of the metadata group under {@code DATA/meta}; never throws. */
    static MetadataStatus start(Cluster cluster, NodeConfig config) {
        MetadataSettings settings = MetadataSettings.defaults(config.dataDir().resolve("meta")).withVoters(config.metaVoters());
        try {
            return new MetadataStatus(cluster.startMetadata(settings), null);
        } catch (IOException | RuntimeException e) {
            String reason = "the metadata group did not start (" + e.getMessage() + "); data requests are served as usual";
            log.error("{}: check {}", reason, settings.directory().toAbsolutePath(), e);
            return new MetadataStatus(null, reason);
        }
    }

    /** What an operator must fix about the metadata, if anything. */
    Optional<String> warning() {
        if (startFailure != null) {
            return Optional.of("metadata: " + startFailure);
        }
        return group.failure().map(failure -> "metadata: " + failure);
    }

    /** {@code {"epoch":..,"leader":..,"self":..,"replicationFactor":..,"members":[{"id","url","state"}]}}. */
    String json() {
        ClusterMetadata metadata = group == null ? ClusterMetadata.EMPTY : group.metadata();
        StringBuilder out = new StringBuilder(256)
                .append("{\"epoch\":").append(metadata.epoch())
                .append(",\"leader\":").append(JsonText.string(group == null ? null : group.leader().orElse(null)))
                .append(",\"self\":").append(JsonText.string(group == null ? null : group.selfId()))
                .append(",\"replicationFactor\":").append(metadata.replicationFactor())
                .append(",\"members\":[");
        for (int i = 0; i < metadata.members().size(); i++) {
            Member member = metadata.members().get(i);
            out.append(i == 0 ? "" : ",").append("{\"id\":").append(JsonText.string(member.id()))
                    .append(",\"url\":").append(JsonText.string(member.url()))
                    .append(",\"state\":").append(JsonText.string(member.state().label())).append('}');
        }
        return out.append("]}").toString();
    }
}
