package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Another node's replica, reached through the shared {@link ReplicaClient}; its reads and writes
 * travel in batches ({@link PeerReadBatcher}, {@link PeerWriteBatcher}) unless batching is off.
 * Thread-safe.
 */
public final class RemoteReplica implements Replica {

    private final ClusterNode node;
    private final ReplicaClient client;
    /** Both null: one request per read and per write. */
    private final PeerWriteBatcher writes;
    private final PeerReadBatcher reads;

    /** One request per read and per write. */
    public RemoteReplica(ClusterNode node, ReplicaClient client) {
        this(node, client, 0);
    }

    /**
     * @param batchesInFlight batches of reads, and of writes, to this node unanswered at once before
     *                        further ones wait to leave together ({@link PeerBatcher}); 0 sends each
     *                        read and write as a request of its own
     */
    public RemoteReplica(ClusterNode node, ReplicaClient client, int batchesInFlight) {
        if (batchesInFlight < 0) {
            throw new IllegalArgumentException("batches in flight must not be negative, got " + batchesInFlight);
        }
        this.node = node;
        this.client = client;
        this.writes = batchesInFlight == 0 ? null : new PeerWriteBatcher(node, client, batchesInFlight);
        this.reads = batchesInFlight == 0 ? null : new PeerReadBatcher(node, client, batchesInFlight);
    }

    @Override
    public ClusterNode node() {
        return node;
    }

    @Override
    public CompletableFuture<Optional<Record>> read(byte[] key) {
        return reads == null ? client.read(node, key) : reads.read(key);
    }

    @Override
    public CompletableFuture<OptionalLong> write(byte[] key, Record record) {
        return write(key, record, -1);
    }

    /** @param routedAt negative: this node's epoch when the write is queued */
    @Override
    public CompletableFuture<OptionalLong> write(byte[] key, Record record, long routedAt) {
        return writes == null ? client.write(node, key, record, routedAt) : writes.write(key, record, routedAt);
    }

    /** What the batches to this node carried so far; empty when batching is off. */
    public java.util.Optional<PeerBatches> batches() {
        return writes == null ? java.util.Optional.empty()
                : java.util.Optional.of(new PeerBatches(node.id(), writes.counts(), reads.counts()));
    }

    @Override
    public String toString() {
        return "RemoteReplica{" + node + '}';
    }
}
