package io.ringkv.cluster;

/**
 * What a node's internal requests say of its cluster metadata ({@link InternalProtocol#EPOCH_HEADER})
 * and what it does when a peer's answer names a newer epoch; {@link ReplicaClient} uses it on
 * every call. Implementations are thread-safe and never block.
 */
public interface EpochExchange {

    /** Sends no epoch and ignores the answers' (tools and tests that hold no metadata). */
    EpochExchange NONE = new EpochExchange() {
        @Override
        public long epoch() {
            return -1;
        }

        @Override
        public void heard(ClusterNode peer, long epoch) {
            // nothing to catch up
        }
    };

    /** The epoch to send; negative for none. */
    long epoch();

    /**
     * A verified answer of {@code peer} carried {@code epoch}. Called on the inter-node client's
     * threads: starts any catch-up asynchronously and returns at once.
     */
    void heard(ClusterNode peer, long epoch);
}
