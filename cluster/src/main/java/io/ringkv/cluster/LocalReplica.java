package io.ringkv.cluster;

import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The replica on this node: calls the {@link StorageEngine} directly, on the calling thread (the
 * node's handler executor), and returns an already completed future. No HTTP, no thread hop.
 *
 * <p>Threading: stateless; safe from any thread that may block on disk (never an event loop).
 */
public final class LocalReplica implements Replica {

    private final ClusterNode node;
    private final StorageEngine engine;

    public LocalReplica(ClusterNode node, StorageEngine engine) {
        this.node = node;
        this.engine = engine;
    }

    @Override
    public ClusterNode node() {
        return node;
    }

    @Override
    public CompletableFuture<Optional<Record>> read(byte[] key) {
        try {
            return CompletableFuture.completedFuture(engine.get(key));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<OptionalLong> write(byte[] key, Record record) {
        try {
            if (engine.apply(key, record)) {
                return CompletableFuture.completedFuture(OptionalLong.empty());
            }
            // Rare (a conflict): read what kept it out. It may have changed since, only to something fresher.
            return CompletableFuture.completedFuture(fresherThan(record, engine.get(key)));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The stored record's timestamp when it is fresher than {@code written}; empty when it is {@code written} itself. */
    static OptionalLong fresherThan(Record written, Optional<Record> stored) {
        return stored.isPresent() && stored.get().timestamp() > written.timestamp()
                ? OptionalLong.of(stored.get().timestamp()) : OptionalLong.empty();
    }

    @Override
    public String toString() {
        return "LocalReplica{" + node + '}';
    }
}
