package io.ringkv.cluster;

import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.WouldBlockException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The replica on this node: calls the {@link StorageEngine} directly, with no HTTP. It first asks
 * the engine to answer without waiting ({@link StorageEngine#getNow}, {@link StorageEngine#applyAllNow}:
 * from memory, no lock held elsewhere, no write stall) and returns an already completed future;
 * only when that would block does the call go to {@code executor}, whose future completes there.
 * So a coordinator may run on an event loop (a request the server handles there,
 * {@link io.ringkv.http.server.HeadAdmission#onLoop}) and still never block it.
 *
 * <p>Threading: stateless; safe from any thread, an event loop included.
 */
public final class LocalReplica implements Replica {

    private final ClusterNode node;
    private final StorageEngine engine;
    private final Executor executor;

    /**
     * A replica whose calls that cannot be answered without waiting run on the calling thread: for
     * callers that may block (tests, tools).
     */
    public LocalReplica(ClusterNode node, StorageEngine engine) {
        this(node, engine, Runnable::run);
    }

    /** @param executor runs a call that cannot be answered without waiting (disk I/O, a held lock, a write stall) */
    public LocalReplica(ClusterNode node, StorageEngine engine, Executor executor) {
        this.node = node;
        this.engine = engine;
        this.executor = executor;
    }

    @Override
    public ClusterNode node() {
        return node;
    }

    @Override
    public CompletableFuture<Optional<Record>> read(byte[] key) {
        try {
            return CompletableFuture.completedFuture(engine.getNow(key));
        } catch (WouldBlockException e) {
            return StorageFallback.run(executor, () -> engine.get(key));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<OptionalLong> write(byte[] key, Record record) {
        try {
            Record keptOut = engine.applyAllNow(List.of(key), List.of(record))[0];
            return CompletableFuture.completedFuture(keptOut == null ? OptionalLong.empty()
                    : fresherThan(record, Optional.of(keptOut)));
        } catch (WouldBlockException e) {
            return StorageFallback.run(executor, () -> {
                if (engine.apply(key, record)) {
                    return OptionalLong.empty();
                }
                // Rare (a conflict): read what kept it out. It may have changed since, only to something fresher.
                return fresherThan(record, engine.get(key));
            });
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
