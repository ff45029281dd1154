package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** Another node's replica, reached through the shared {@link ReplicaClient}. Immutable, thread-safe. */
public final class RemoteReplica implements Replica {

    private final ClusterNode node;
    private final ReplicaClient client;

    public RemoteReplica(ClusterNode node, ReplicaClient client) {
        this.node = node;
        this.client = client;
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
        return client.write(node, key, record);
    }

    @Override
    public String toString() {
        return "RemoteReplica{" + node + '}';
    }
}
