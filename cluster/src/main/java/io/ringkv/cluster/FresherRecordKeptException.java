package io.ringkv.cluster;

/**
 * A replica kept a fresher record than a client's new write, so the write was stamped below a
 * version it may have to follow (one acknowledged through a node whose clock was ahead of this
 * one's). The replica did its job: this is counted as a reply that did not store the write, and
 * no hint is kept for it; {@link Coordinator} stamps the write again above {@link #timestamp()}
 * when the write fell short of its quorum.
 */
final class FresherRecordKeptException extends Exception {
    private final long timestamp;

    FresherRecordKeptException(ClusterNode node, long timestamp) {
        super(node + " keeps a fresher record, stamped " + timestamp, null, false, false);
        this.timestamp = timestamp;
    }

    /** The timestamp of the record the replica kept. */
    long timestamp() {
        return timestamp;
    }
}
