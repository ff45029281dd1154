package io.ringkv.cluster;

import io.ringkv.cluster.meta.ClusterMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many nodes own each key (its first {@code rf} nodes in rendezvous order): the node's
 * configured value ({@code serve --replication-factor}) until its replica of the cluster metadata
 * has applied one, then the metadata's, which is the source of truth. A change applied from the
 * metadata log ({@code ringkv meta set-replication-factor}) takes effect here as soon as this
 * node knows it ({@link KnownMetadata}: its replica applied the entry, or a catch-up read it from
 * the leader), and is logged.
 *
 * <p>Nodes apply the log at slightly different moments, so two nodes may briefly disagree; nothing
 * depends on their agreeing at one instant: requests name their replicas explicitly,
 * anti-entropy compares the keys both sides own under the requesting side's factor, which it sends,
 * and the metadata epoch on internal requests makes the node behind catch up ({@link EpochGate}).
 *
 * <p>Threading: {@link #current} from any thread (a volatile read); {@link #follow} from
 * {@link KnownMetadata#offer}, which calls it under its lock, newer epochs only, one at a time.
 */
public final class ReplicationFactor {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationFactor.class);

    private final java.util.function.IntSupplier clusterSize;
    private volatile int current;
    private volatile boolean fromMetadata;

    /**
     * @throws IllegalArgumentException unless {@code 1 <= configured <= clusterSize}
     */
    public ReplicationFactor(int configured, int clusterSize) {
        this(configured, () -> clusterSize);
    }

    /**
     * @param clusterSize the owners now ({@link ClusterNodes#size}): a factor from the metadata above
     *                    it is not applied
     * @throws IllegalArgumentException unless {@code 1 <= configured <= clusterSize}
     */
    public ReplicationFactor(int configured, java.util.function.IntSupplier clusterSize) {
        check(configured, clusterSize.getAsInt());
        this.clusterSize = clusterSize;
        this.current = configured;
    }

    /** The default for a cluster of {@code n} nodes: 3, or every node of a smaller cluster. */
    public static int defaultFor(int clusterSize) {
        return Math.min(ClusterMetadata.DEFAULT_REPLICATION_FACTOR, clusterSize);
    }

    /**
     * @throws IllegalArgumentException with a message for the operator unless {@code 1 <= rf <= clusterSize}
     */
    public static void check(int rf, int clusterSize) {
        if (rf < 1) {
            throw new IllegalArgumentException("the replication factor must be at least 1, got " + rf);
        }
        if (rf > clusterSize) {
            throw new IllegalArgumentException("the replication factor " + rf + " exceeds the " + clusterSize
                    + " node(s) of the cluster: each key lives on at most every node");
        }
    }

    public int current() {
        return current;
    }

    /** Whether {@link #current} comes from the applied metadata rather than the configuration. */
    public boolean fromMetadata() {
        return fromMetadata;
    }

    /** Takes the factor of metadata this node just applied; metadata not yet initialised changes nothing. */
    public void follow(ClusterMetadata metadata) {
        if (!metadata.initialised()) {
            return;
        }
        int rf = metadata.replicationFactor();
        int clusterSize = this.clusterSize.getAsInt();
        if (rf < 1 || rf > clusterSize) {
            LOG.error("the cluster metadata (epoch {}) sets replication factor {}, which this node of a {}-node list "
                    + "cannot apply; it keeps {}", metadata.epoch(), rf, clusterSize, current);
            return;
        }
        int before = current;
        current = rf;
        if (!fromMetadata || before != rf) {
            LOG.info("replication factor {} from the cluster metadata (epoch {}){}", rf, metadata.epoch(),
                    before != rf ? ", was " + before : "");
        }
        fromMetadata = true;
    }
}
