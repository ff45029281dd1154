package io.ringkv.store;

import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

/**
 * {@link PaxosStateLog} on the engine's {@code paxos} column family, keyed by the record's key,
 * written with the engine's write options: the same write-ahead log and durability as the data.
 *
 * <p>Threading: thread-safe; every native call runs through the engine's
 * {@link RocksDbStorageEngine#guarded} so none outlives {@code close}.
 */
final class RocksDbPaxosStateLog implements PaxosStateLog {
    private final RocksDbStorageEngine engine;
    private final RocksDB db;
    private final ColumnFamilyHandle family;
    private final WriteOptions writeOptions;

    RocksDbPaxosStateLog(RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle family, WriteOptions writeOptions) {
        this.engine = engine;
        this.db = db;
        this.family = family;
        this.writeOptions = writeOptions;
    }

    @Override
    public PaxosState get(byte[] key) throws StoreException {
        return engine.guarded("read paxos state", key, () -> {
            byte[] stored = db.get(family, key);
            return stored == null ? PaxosState.EMPTY : PaxosState.decode(stored);
        });
    }

    @Override
    public void put(byte[] key, PaxosState state) throws StoreException {
        engine.guarded("store paxos state", key, () -> {
            db.put(family, writeOptions, key, PaxosState.encode(state));
            return null;
        });
    }

    @Override
    public List<Promised> promisedFrom(byte[] startInclusive, int limit) throws StoreException {
        if (limit < 1) {
            throw new IllegalArgumentException("a page holds at least one key, got " + limit);
        }
        // One iterator per page, opened and closed inside one guarded call: nothing native outlives it.
        return engine.guarded("scan paxos states", startInclusive, () -> {
            List<Promised> page = new ArrayList<>(Math.min(limit, 1024));
            try (RocksIterator iterator = db.newIterator(family)) {
                for (iterator.seek(startInclusive); iterator.isValid() && page.size() < limit; iterator.next()) {
                    page.add(new Promised(iterator.key(), PaxosState.promisedOf(iterator.value())));
                }
                iterator.status();
            }
            return page;
        });
    }

    @Override
    public void remove(byte[] key) throws StoreException {
        engine.guarded("remove paxos state", key, () -> {
            db.delete(family, writeOptions, key);
            return null;
        });
    }
}
