package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A replica whose node is down: every call fails at once, as a refused connection would. */
final class FailingReplica implements Replica {
    private final ClusterNode node;

    FailingReplica(ClusterNode node) {
        this.node = node;
    }

    @Override
    public ClusterNode node() {
        return node;
    }

    @Override
    public CompletableFuture<Optional<Record>> read(byte[] key) {
        return CompletableFuture.failedFuture(new IOException("injected: " + node + " is down"));
    }

    @Override
    public CompletableFuture<java.util.OptionalLong> write(byte[] key, Record record) {
        return CompletableFuture.failedFuture(new IOException("injected: " + node + " is down"));
    }
}
