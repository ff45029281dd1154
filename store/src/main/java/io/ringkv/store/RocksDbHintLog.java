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
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HintLog} on the engine's {@code hints} column family ({@link HintCodec} has the layout).
 * Counts and bytes per target live in memory, rebuilt by one scan when the engine opens. A stored
 * hint that does not decode is deleted where it is met (that scan, or a read of a target's
 * hints) and counted: one bad record must neither stop the store from opening nor stall its
 * target's replay, and it can never be replayed.
 *
 * <p>Threading: thread-safe. Sequences come from an {@link AtomicLong}; tallies are adjusted
 * after the RocksDB write that justifies them; every native call runs through the engine's
 * {@link RocksDbStorageEngine#guarded} so none outlives {@code close}.
 */
final class RocksDbHintLog implements HintLog {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbHintLog.class);
    private static final byte[] NO_KEY = new byte[0];
    /** Undecodable records named one by one in the log at open; a wholly damaged log gets a summary, not a flood. */
    private static final int CORRUPT_SHOWN_MAX = 10;

    private final RocksDbStorageEngine engine;
    private final RocksDB db;
    private final ColumnFamilyHandle family;
    private final WriteOptions writeOptions;
    private final AtomicLong lastSequence = new AtomicLong();
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();
    private final AtomicLong corrupt = new AtomicLong();

    /** One target's hints: how many, and their {@link Hint#sizeBytes} together. */
    private static final class Tally {
        final AtomicLong count = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();

        void add(long hints, long size) {
            count.addAndGet(hints);
            bytes.addAndGet(size);
        }
    }

    private RocksDbHintLog(RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle family, WriteOptions writeOptions) {
        this.engine = engine;
        this.db = db;
        this.family = family;
        this.writeOptions = writeOptions;
    }

    /** Opens the log over an open engine's column family, counts what is there and deletes what does not decode. */
    static RocksDbHintLog open(RocksDbStorageEngine engine, RocksDB db, ColumnFamilyHandle family,
                               WriteOptions writeOptions) throws StoreException {
        RocksDbHintLog log = new RocksDbHintLog(engine, db, family, writeOptions);
        engine.guarded("open hints", NO_KEY, () -> {
            List<byte[]> undecodable = new ArrayList<>();
            try (RocksIterator it = db.newIterator(family)) {
                for (it.seekToFirst(); it.isValid(); it.next()) {
                    try {
                        Hint hint = HintCodec.decode(it.key(), it.value());
                        log.tally(hint.target()).add(1, hint.sizeBytes());
                        log.lastSequence.accumulateAndGet(hint.sequence(), Math::max);
                    } catch (CorruptRecordException e) {
                        undecodable.add(it.key());
                        if (undecodable.size() <= CORRUPT_SHOWN_MAX) {
                            LOG.warn("hint record {} does not decode ({}); it is deleted", Keys.describe(it.key()), e.getMessage());
                        }
                    }
                }
                it.status();
            }
            if (!undecodable.isEmpty()) {
                LOG.warn("{} hint records did not decode and were deleted; anti-entropy brings their writes to their "
                        + "targets", undecodable.size());
            }
            log.deleteCorrupt(undecodable);
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
        tally(target).add(1, hint.sizeBytes());
        return hint;
    }

    @Override
    public List<Hint> oldest(String target, int limit, long bytesMax) throws StoreException {
        byte[] prefix = HintCodec.targetPrefix(target);
        return engine.guarded("read hints", prefix, () -> {
            List<Hint> hints = new ArrayList<>(Math.min(limit, 1024));
            List<byte[]> undecodable = new ArrayList<>();
            long undecodableBytes = 0;
            long bytes = 0;
            try (RocksIterator it = db.newIterator(family)) {
                for (it.seek(prefix); it.isValid() && hints.size() < limit && startsWith(it.key(), prefix); it.next()) {
                    Hint hint;
                    try {
                        hint = HintCodec.decode(it.key(), it.value());
                    } catch (CorruptRecordException e) {
                        // Counted in this target's tally when it was added: take it out with its estimated size.
                        undecodable.add(it.key());
                        undecodableBytes += HintCodec.sizeOfStored(it.value());
                        LOG.warn("hint record {} for {} does not decode ({}); deleted, its write is left to anti-entropy",
                                Keys.describe(it.key()), target, e.getMessage());
                        continue;
                    }
                    if (!hints.isEmpty() && bytes + hint.sizeBytes() > bytesMax) {
                        break;
                    }
                    hints.add(hint);
                    bytes += hint.sizeBytes();
                }
                it.status();
            }
            if (!undecodable.isEmpty()) {
                deleteCorrupt(undecodable);
                tally(target).add(-undecodable.size(), -undecodableBytes);
            }
            return hints;
        });
    }

    /** Deletes undecodable records and counts them. Runs inside {@link RocksDbStorageEngine#guarded}. */
    private void deleteCorrupt(List<byte[]> keys) throws RocksDBException {
        if (keys.isEmpty()) {
            return;
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (byte[] key : keys) {
                batch.delete(family, key);
            }
            db.write(writeOptions, batch);
        }
        corrupt.addAndGet(keys.size());
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
            tally(hint.target()).add(-1, -hint.sizeBytes());
        }
    }

    @Override
    public long count(String target) {
        Tally tally = tallies.get(target);
        return tally == null ? 0 : Math.max(0, tally.count.get());
    }

    @Override
    public long bytes(String target) {
        Tally tally = tallies.get(target);
        return tally == null ? 0 : Math.max(0, tally.bytes.get());
    }

    @Override
    public Map<String, Long> counts() {
        Map<String, Long> snapshot = new TreeMap<>();
        tallies.forEach((target, tally) -> {
            long value = tally.count.get();
            if (value > 0) {
                snapshot.put(target, value);
            }
        });
        return snapshot;
    }

    @Override
    public long corruptSkipped() {
        return corrupt.get();
    }

    /** Stores raw bytes under a raw key, tallying nothing: how tests damage a record while the store is open. */
    void putForTests(byte[] storedKey, byte[] storedValue) throws StoreException {
        engine.guarded("put raw hint", storedKey, () -> {
            db.put(family, writeOptions, storedKey, storedValue);
            return null;
        });
    }

    private Tally tally(String target) {
        return tallies.computeIfAbsent(target, t -> new Tally());
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
