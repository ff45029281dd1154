package io.ringkv.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * {@link HintLog} on the engine's {@code hints} column family ({@link HintCodec} has the layout).
 * Counts per target live in memory, rebuilt by one scan when the engine opens.
 *
 * <p>Threading: thread-safe. Sequences come from an {@link AtomicLong}; counts are adjusted
 * after the RocksDB write that justifies them; every native call runs through the engine's
 * {@link RocksDbStorageEngine#guarded} so none outlives {@code close}.
 */
final class RocksDbHintLog implements HintLog {
    private static final byte[] NO_KEY = new byte[0];

    private final RocksDbStorageEngine engine;
    private final RocksDB db;
    private final ColumnFamilyHandle family;
    private final WriteOptions writeOptions;
    private final AtomicLong lastSequence = new AtomicLong();
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    private RocksDbHintLog(RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle family, WriteOptions writeOptions) {
        this.engine = engine;
        this.db = db;
        this.family = family;
        this.writeOptions = writeOptions;
    }

    /** Opens the log over an open engine's column family and counts what is there. */
    static RocksDbHintLog open(RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle family,
                               WriteOptions writeOptions) throws StoreException {
        RocksDbHintLog log = new RocksDbHintLog(engine, db, family, writeOptions);
        engine.guarded("open hints", NO_KEY, () -> {
            try (RocksIterator it = db.newIterator(family)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    Hint hint = HintCodec.decode(it.key(), it.value());
                    log.counter(hint.target()).incrementAndGet();
                    log.lastSequence.accumulateAndGet(hint.sequence(), Math::max);
                }
                it.status();
            }
            return null;
        });
        return log;
    }

    @Override
    public Hint add(String target, byte[] key, Record record, long nowMillis) throws StoreException {
        Hint hint = new Hint(target, lastSequence.incrementAndGet(), nowMillis, key, record);
        engine.guarded("add hint", key, () -> {
            db.put(family, writeOptions, HintCodec.key(target, hint.sequence()), HintCodec.value(hint));
            return null;
        });
        counter(target).incrementAndGet();
        return hint;
    }

    @Override
    public List<Hint> oldest(String target, int limit) throws StoreException {
        byte[] prefix = HintCodec.targetPrefix(target);
        return engine.guarded("read hints", prefix, () -> {
            List<Hint> hints = new ArrayList<>(Math.min(limit, 1024));
            try (RocksIterator it = db.newIterator(family)) {
                for (it.seek(prefix); it.isValid() && hints.size() < limit && startsWith(it.key(), prefix); it.next()) {
                    hints.add(HintCodec.decode(it.key(), it.value()));
                }
                it.status();
            }
            return hints;
        });
    }

    @Override
    public void remove(List<Hint> hints) throws StoreException {
        if (hints.isEmpty()) {
            return;
        }
        engine.guarded("remove hints", NO_KEY, () -> {
            try (WriteBatch batch = new WriteBatch()) {
                for (Hint hint : hints) {
                    batch.delete(family, HintCodec.key(hint.target(), hint.sequence()));
                }
                db.write(writeOptions, batch);
            }
            return null;
        });
        for (Hint hint : hints) {
            // Entries are never removed: there is one per target, and targets are the cluster's nodes.
            counter(hint.target()).decrementAndGet();
        }
    }

    @Override
    public long count(String target) {
        AtomicLong count = counts.get(target);
        return count == null ? 0 : Math.max(0, count.get());
    }

    @Override
    public Map<String, Long> counts() {
        Map<String, Long> snapshot = new TreeMap<>();
        counts.forEach((target, count) -> {
            long value = count.get();
            if (value > 0) {
                snapshot.put(target, value);
            }
        });
        return snapshot;
    }

    private AtomicLong counter(String target) {
        return counts.computeIfAbsent(target, t -> new AtomicLong());
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
