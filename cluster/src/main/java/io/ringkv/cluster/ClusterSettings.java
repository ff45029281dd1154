package io.ringkv.cluster;

import java.time.Duration;
import java.util.List;

/**
 * Everything a node needs to join its cluster.
 *
 * @param nodeUrls             every node's URL, this one included (the same list on every node)
 * @param selfUrl              this node's URL, one of {@code nodeUrls}
 * @param replicaTimeout       per request to another node ({@link ReplicaClient#DEFAULT_REQUEST_TIMEOUT})
 * @param coordinatorDeadline  longest wait for {@code ack} replies ({@link CoordinatorSettings#DEFAULT_DEADLINE})
 * @param clientThreads        threads of the inter-node client's executor
 * @param secret               the cluster secret that authenticates internal requests; required
 *                             with more than one node, null allowed for a one-node cluster
 * @param transport            which client and protocol talk to other nodes
 * @param hints                bounds and pace of hinted handoff
 * @param antiEntropy          pace and bounds of anti-entropy
 * @param tombstoneGrace       tombstones older than this are collected; longer than the
 *                             anti-entropy interval and the hints' maximum age
 * @param maxClockOffset       a peer's timestamp further ahead of this node's clock is refused, and
 *                             a node behind most peers by more refuses writes ({@link ClockSkew})
 * @param readSpareDelay       a read asks its other replicas this long after the first {@code ack}
 *                             ones, or at once when one fails ({@link CoordinatorSettings#readSpareDelay()});
 *                             zero asks every replica at once
 * @param replicationFactor    how many nodes own each key until the cluster metadata says otherwise
 *                             ({@link ReplicationFactor}); the value written into the metadata when
 *                             it is initialised; 1 to the number of nodes
 * @param streamBytesPerSecond how fast this node's hand-overs (a join, a leave, a replacement,
 *                             {@code ringkv cleanup}) read its store, in bytes of keys and values
 *                             per second; what moves is sent on as it is read ({@link Cleanup})
 */
public record ClusterSettings(List<String> nodeUrls, String selfUrl, Duration replicaTimeout,
                              Duration coordinatorDeadline, int clientThreads, ClusterSecret secret,
                              InterNodeTransport transport, HintSettings hints,
                              AntiEntropySettings antiEntropy, Duration tombstoneGrace, Duration maxClockOffset,
                              Duration readSpareDelay, int replicationFactor, long streamBytesPerSecond) {

    public static final int DEFAULT_CLIENT_THREADS = 2;
    public static final Duration DEFAULT_TOMBSTONE_GRACE = Duration.ofDays(10);
    public static final Duration DEFAULT_MAX_CLOCK_OFFSET = Duration.ofMillis(500);
    /**
     * The hand-over pace unless told otherwise: 64 MB read per second ({@code serve --stream-rate}).
     * Each sender reads its whole store at this pace, the records it does not send included: at 32
     * a join took in 16 MB/s of unique data without load, at 64 about 21, and about 23 once it
     * received one copy of each record instead of two (docs/benchmarks.md, "Membership changes
     * under load").
     */
    public static final long DEFAULT_STREAM_BYTES_PER_SECOND = 64_000_000L;

    public ClusterSettings {
        nodeUrls = List.copyOf(nodeUrls);
        if (replicaTimeout.isNegative() || replicaTimeout.isZero()) {
            throw new IllegalArgumentException("the replica timeout must be positive, got " + replicaTimeout);
        }
        if (tombstoneGrace.compareTo(antiEntropy.interval()) <= 0 || tombstoneGrace.compareTo(hints.maxAge()) <= 0) {
            throw new IllegalArgumentException("the tombstone grace period (" + tombstoneGrace + ") must exceed the "
                    + "anti-entropy interval (" + antiEntropy.interval() + ") and the hints' maximum age ("
                    + hints.maxAge() + "), or a replica could bring a deleted value back");
        }
        if (maxClockOffset.isNegative() || maxClockOffset.isZero()) {
            throw new IllegalArgumentException("the clock offset bound must be positive, got " + maxClockOffset);
        }
        if (readSpareDelay.isNegative()) {
            throw new IllegalArgumentException("the read spare delay must not be negative, got " + readSpareDelay);
        }
        if (clientThreads < 1) {
            throw new IllegalArgumentException("clientThreads must be positive, got " + clientThreads);
        }
        ReplicationFactor.check(replicationFactor, nodeUrls.size());
        if (streamBytesPerSecond < 1) {
            throw new IllegalArgumentException("the stream rate must be positive, got " + streamBytesPerSecond);
        }
    }

    /** With the default replication factor for the node list ({@link ReplicationFactor#defaultFor}). */
    public ClusterSettings(List<String> nodeUrls, String selfUrl, Duration replicaTimeout,
                           Duration coordinatorDeadline, int clientThreads, ClusterSecret secret,
                           InterNodeTransport transport, HintSettings hints,
                           AntiEntropySettings antiEntropy, Duration tombstoneGrace, Duration maxClockOffset,
                           Duration readSpareDelay) {
        this(nodeUrls, selfUrl, replicaTimeout, coordinatorDeadline, clientThreads, secret, transport, hints, antiEntropy,
                tombstoneGrace, maxClockOffset, readSpareDelay, ReplicationFactor.defaultFor(nodeUrls.size()),
                DEFAULT_STREAM_BYTES_PER_SECOND);
    }

    public ClusterSettings withReplicationFactor(int rf) {
        return new ClusterSettings(nodeUrls, selfUrl, replicaTimeout, coordinatorDeadline, clientThreads, secret,
                transport, hints, antiEntropy, tombstoneGrace, maxClockOffset, readSpareDelay, rf, streamBytesPerSecond);
    }

    public ClusterSettings withHints(HintSettings hintSettings) {
        return new ClusterSettings(nodeUrls, selfUrl, replicaTimeout, coordinatorDeadline, clientThreads, secret,
                transport, hintSettings, antiEntropy, tombstoneGrace, maxClockOffset, readSpareDelay, replicationFactor, streamBytesPerSecond);
    }

    public ClusterSettings withAntiEntropy(AntiEntropySettings settings) {
        return new ClusterSettings(nodeUrls, selfUrl, replicaTimeout, coordinatorDeadline, clientThreads, secret,
                transport, hints, settings, tombstoneGrace, maxClockOffset, readSpareDelay, replicationFactor, streamBytesPerSecond);
    }

    public ClusterSettings withSecret(ClusterSecret clusterSecret) {
        return new ClusterSettings(nodeUrls, selfUrl, replicaTimeout, coordinatorDeadline, clientThreads, clusterSecret,
                transport, hints, antiEntropy, tombstoneGrace, maxClockOffset, readSpareDelay, replicationFactor, streamBytesPerSecond);
    }

    public ClusterSettings withTombstoneGrace(Duration grace) {
        return new ClusterSettings(nodeUrls, selfUrl, replicaTimeout, coordinatorDeadline, clientThreads, secret,
                transport, hints, antiEntropy, grace, maxClockOffset, readSpareDelay, replicationFactor, streamBytesPerSecond);
    }

    public ClusterSettings withStreamRate(long bytesPerSecond) {
        return new ClusterSettings(nodeUrls, selfUrl, replicaTimeout, coordinatorDeadline, clientThreads, secret,
                transport, hints, antiEntropy, tombstoneGrace, maxClockOffset, readSpareDelay, replicationFactor, bytesPerSecond);
    }

    /** Default timeouts and threads, no secret (enough for one node; add one with {@link #withSecret}). */
    public static ClusterSettings of(List<String> nodeUrls, String selfUrl) {
        return new ClusterSettings(nodeUrls, selfUrl, ReplicaClient.DEFAULT_REQUEST_TIMEOUT,
                CoordinatorSettings.DEFAULT_DEADLINE, DEFAULT_CLIENT_THREADS, null, InterNodeTransport.defaults(),
                HintSettings.defaults(), AntiEntropySettings.defaults(), DEFAULT_TOMBSTONE_GRACE,
                DEFAULT_MAX_CLOCK_OFFSET, CoordinatorSettings.DEFAULT_READ_SPARE_DELAY);
    }
}
