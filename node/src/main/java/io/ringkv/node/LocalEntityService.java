package io.ringkv.node;

import io.ringkv.http.server.ChunkSource;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import io.ringkv.cluster.ReplicationParams;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A one-node store: every request is answered from the local engine on the calling thread
 * (the server's bounded handler executor), and the returned future is already complete, so no
 * thread hop happens on the way back.
 */
public final class LocalEntityService implements EntityService {
    private final StorageEngine engine;
    private final HybridLogicalClock clock;

    public LocalEntityService(StorageEngine engine, HybridLogicalClock clock) {
        this.engine = engine;
        this.clock = clock;
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(byte[] key, ReplicationParams replicas) {
        try {
            return CompletableFuture.completedFuture(engine.get(key).filter(r -> !r.tombstone()).map(Record::value));
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Void> put(byte[] key, byte[] value, ReplicationParams replicas) {
        return apply(key, Record.value(clock.now(), value));
    }

    @Override
    public CompletableFuture<Void> delete(byte[] key, ReplicationParams replicas) {
        return apply(key, Record.tombstone(clock.now()));
    }

    private CompletableFuture<Void> apply(byte[] key, Record record) {
        try {
            engine.apply(key, record);
            return CompletableFuture.completedFuture(null);
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public ChunkSource range(byte[] start, byte[] end, boolean localOnly) throws StoreException {
        return new LocalRangeChunkSource(engine.range(start, end));
    }

    @Override
    public int clusterSize() {
        return 1;
    }
}
