package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A slow replica without clocks: calls reach the delegate only when the test opens the gate,
 * so "the coordinator answered before the slow replica" is a fact, not a timing guess.
 */
final class GatedReplica implements Replica {
    private final Replica delegate;
    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private final ConcurrentLinkedQueue<CompletableFuture<?>> pending = new ConcurrentLinkedQueue<>();

    GatedReplica(Replica delegate) {
        this.delegate = delegate;
    }

    void open() {
        gate.complete(null);
    }

    int pendingCalls() {
        return (int) pending.stream().filter(call -> !call.isDone()).count();
    }

    @Override
    public ClusterNode node() {
        return delegate.node();
    }

    @Override
    public CompletableFuture<Optional<Record>> read(byte[] key) {
        return track(gate.thenCompose(ignored -> delegate.read(key)));
    }

    @Override
    public CompletableFuture<java.util.OptionalLong> write(byte[] key, Record record) {
        return track(gate.thenCompose(ignored -> delegate.write(key, record)));
    }

    private <T> CompletableFuture<T> track(CompletableFuture<T> call) {
        pending.add(call);
        return call;
    }
}
