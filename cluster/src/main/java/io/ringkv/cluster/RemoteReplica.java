package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Another node's replica, reached through the shared {@link ReplicaClient}; its writes travel in
 * batches ({@link PeerWriteBatcher}) unless batching is off. Thread-safe.
 */
public final class RemoteReplica implements Replica {

    private final ClusterNode node;
    private final ReplicaClient client;
    /** Null: one request per write. */
    private final PeerWriteBatcher batcher;

    /** One request per write. */
    public RemoteReplica(ClusterNode node, ReplicaClient client) {
        this(node, client, 0);
    }

    /**
     * @param writeBatchesInFlight batches of writes to this node unanswered at once before further
     *                             writes wait to leave together ({@link PeerWriteBatcher}); 0 sends
     *                             each write as a request of its own
     */
    public RemoteReplica(ClusterNode node, ReplicaClient client, int writeBatchesInFlight) {
        if (writeBatchesInFlight < 0) {
            throw new IllegalArgumentException("write batches in flight must not be negative, got " + writeBatchesInFlight);
        }
        this.node = node;
        this.client = client;
        this.batcher = writeBatchesInFlight == 0 ? null : new PeerWriteBatcher(node, client, writeBatchesInFlight);
    }

    @Override
    public ClusterNode node() {
        return node;
    }

    @Override
    public CompletableFuture<Optional<Record>> read(byte[] key) {
        return client.read(node, key);
    }

    @Override
    public CompletableFuture<OptionalLong> write(byte[] key, Record record) {
        return batcher == null ? client.write(node, key, record) : batcher.write(key, record);
    }

    @Override
    public String toString() {
        return "RemoteReplica{" + node + '}';
    }
}
