package io.ringkv.store;

import java.util.List;
import java.util.Optional;

/**
 * Durable storage of one {@link Record} per key, keys ordered by unsigned byte comparison.
 *
 * <p>Threading: every method is safe to call from many threads at once. Every method may block
 * on disk I/O: call it from a bounded executor or a virtual thread, never from an event loop;
 * except {@link #getNow} and {@link #applyAllNow}, which never wait and say so when they would.
 *
 * <p>Errors: {@link StoreException} for storage failures (the caller answers 5xx); arguments are
 * never null.
 */
public interface StorageEngine extends AutoCloseable {

    Optional<Record> get(byte[] key) throws StoreException;

    /**
     * Stores {@code record} unless the stored record for the key is newer or equal
     * ({@link Record#compareTo}), so replicas converge whatever order writes arrive in.
     * Durable when this returns, per the engine's {@link Durability}. The engine and its
     * {@link RecordChangeListener} may keep {@code key}: do not modify it afterwards.
     *
     * @return true when {@code record} is now the stored one
     */
    boolean apply(byte[] key, Record record) throws StoreException;

    /**
     * Applies {@code records.get(i)} to {@code keys.get(i)} as {@link #apply} would, in list order
     * (a key may appear more than once: each later record is compared with what the earlier ones
     * left). An engine may write the whole batch to disk at once; this default applies one record
     * after the other.
     *
     * @return per record, null when it replaced what was stored, else the stored record that was
     *         not replaced (newer than it or equal to it; null too if that one was purged since)
     */
    default Record[] applyAll(List<byte[]> keys, List<Record> records) throws StoreException {
        if (keys.size() != records.size()) {
            throw new IllegalArgumentException(keys.size() + " keys for " + records.size() + " records");
        }
        Record[] keptOut = new Record[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            if (!apply(keys.get(i), records.get(i))) {
                keptOut[i] = get(keys.get(i)).orElse(null);
            }
        }
        return keptOut;
    }

    /**
     * As {@link #get}, without waiting: answered from memory (RocksDB's memtables, block cache and
     * filters), for a caller that must not block (an event loop).
     *
     * @throws WouldBlockException when the answer needs disk I/O or the store is closing; nothing
     *                             is lost, call {@link #get} on a thread that may block. An engine
     *                             that cannot tell always throws it (the default).
     */
    default Optional<Record> getNow(byte[] key) throws StoreException {
        throw WouldBlockException.of(WouldBlockException.Cause.UNSUPPORTED);
    }

    /**
     * As {@link #applyAll}, without waiting: for a caller that must not block (an event loop).
     *
     * @throws WouldBlockException when a key's lock is held by another thread, a read needs disk
     *                             I/O, the write would be slowed or stopped, or every write is
     *                             synced to disk; nothing was written, call {@link #applyAll} on a
     *                             thread that may block. An engine that cannot tell always throws
     *                             it (the default).
     */
    default Record[] applyAllNow(List<byte[]> keys, List<Record> records) throws StoreException {
        throw WouldBlockException.of(WouldBlockException.Cause.UNSUPPORTED);
    }

    /**
     * Records with {@code startInclusive <= key < endExclusive} in key order, tombstones included
     * (callers that serve clients skip them). {@code endExclusive == null} means to the last key.
     * The cursor reads lazily: memory use does not depend on the size of the range. Close it.
     */
    RangeCursor range(byte[] startInclusive, byte[] endExclusive) throws StoreException;

    /**
     * Deletes the key's record if it is still exactly {@code expected} (tombstone collection: a
     * record written meanwhile is kept). Durable when this returns, per the engine's durability.
     *
     * @return true when the record was deleted
     */
    boolean purge(byte[] key, Record expected) throws StoreException;

    /**
     * From now on, tells {@code listener} of every record {@link #apply} stores (with the one it
     * replaced) and every one {@link #purge} removes. One listener at a time: this replaces the
     * previous one. Set it while nothing writes, or changes made meanwhile may go unreported.
     */
    void setChangeListener(RecordChangeListener listener);

    /**
     * Sets {@code listener}, as {@link #setChangeListener}, and opens a cursor over every record
     * stored at that same instant, while the store is written: the cursor shows each key as it
     * was then, and the listener hears of every change made after, none made before. So a summary
     * built from both (what the cursor shows, then each change the listener reports) is the store
     * as it is, with no write counted twice or missed, whatever lands during the scan. Writes
     * wait only while the listener is set (every key's lock is taken for that moment), not during
     * the scan.
     */
    RangeCursor setChangeListenerAndScan(RecordChangeListener listener) throws StoreException;

    /** Where the node's clock keeps its high-water mark, with the same durability as the data. */
    ClockLease clockLease();

    /** The hinted-handoff hints kept beside the data, with the same durability. */
    HintLog hints();

    /** Each key's compare-and-set state, beside the data and apart from it, with the same durability. */
    PaxosStateLog paxos();

    /**
     * The engine's own statistics (memory, files, stalls, cache, keys), for metrics. Cheap enough to
     * call per scrape; blocks briefly. Default: nothing known.
     */
    default StorageStats stats() throws StoreException {
        return StorageStats.NONE;
    }

    @Override
    void close();
}
