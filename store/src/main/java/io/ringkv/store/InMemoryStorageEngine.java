package io.ringkv.store;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A {@link StorageEngine} on the heap, for tests of higher layers and simulations. Same
 * contract as {@link RocksDbStorageEngine} except durability: everything is lost on close.
 *
 * <p>Threading: thread-safe and lock-free. {@link #apply} is a compare-and-set loop on the
 * key's entry. Range cursors are weakly consistent (they may or may not see writes made while
 * they run; they never fail because of them), unlike RocksDB's snapshot-consistent ones.
 */
public final class InMemoryStorageEngine implements StorageEngine {

    private final ConcurrentSkipListMap<byte[], Record> records = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
    private final InMemoryHintLog hints = new InMemoryHintLog();
    private final InMemoryPaxosStateLog paxos = new InMemoryPaxosStateLog();
    private final java.util.concurrent.atomic.AtomicLong clockMark = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;
    private volatile RecordChangeListener changeListener = RecordChangeListener.NONE;
    /**
     * A change and its report to the listener hold the read side; {@link #setChangeListenerAndScan}
     * holds the write side, so no change is between the two when the listener and the snapshot change.
     */
    private final ReentrantReadWriteLock reporting = new ReentrantReadWriteLock();

    @Override
    public ClockLease clockLease() {
        return new ClockLease() {
            @Override
            public long loadMillis() {
                return clockMark.get();
            }

            @Override
            public void storeMillis(long millis) {
                clockMark.set(millis);
            }
        };
    }

    @Override
    public HintLog hints() {
        return hints;
    }

    @Override
    public PaxosStateLog paxos() {
        return paxos;
    }

    @Override
    public Optional<Record> get(byte[] key) throws StoreException {
        Objects.requireNonNull(key, "key");
        ensureOpen("get");
        return Optional.ofNullable(records.get(key));
    }

    @Override
    public boolean apply(byte[] key, Record record) throws StoreException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(record, "record");
        ensureOpen("apply");
        byte[] ownKey = key.clone();
        reporting.readLock().lock();
        try {
            while (true) {
                Record stored = records.putIfAbsent(ownKey, record);
                if (stored == null) {
                    changeListener.changed(ownKey, null, record);
                    return true;
                }
                if (!record.isNewerThan(stored)) {
                    return false;
                }
                if (records.replace(ownKey, stored, record)) {
                    changeListener.changed(ownKey, stored, record);
                    return true;
                }
                // Another writer changed the entry between our read and our replace: compare again.
            }
        } finally {
            reporting.readLock().unlock();
        }
    }

    /** Never waits: the map takes no locks. */
    @Override
    public Optional<Record> getNow(byte[] key) throws StoreException {
        return get(key);
    }

    /** Never waits: the map takes no locks. */
    @Override
    public Record[] applyAllNow(List<byte[]> keys, List<Record> records) throws StoreException {
        return applyAll(keys, records);
    }

    @Override
    public boolean purge(byte[] key, Record expected) throws StoreException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(expected, "expected");
        ensureOpen("purge");
        reporting.readLock().lock();
        try {
            if (!records.remove(key, expected)) {
                return false;
            }
            changeListener.changed(key, expected, null);
            return true;
        } finally {
            reporting.readLock().unlock();
        }
    }

    @Override
    public void setChangeListener(RecordChangeListener listener) {
        changeListener = Objects.requireNonNull(listener, "listener");
    }

    /** The cursor reads a copy of the map made while no change is being made: memory for the whole store, as fits a test engine. */
    @Override
    public RangeCursor setChangeListenerAndScan(RecordChangeListener listener) throws StoreException {
        Objects.requireNonNull(listener, "listener");
        ensureOpen("scan");
        NavigableMap<byte[], Record> snapshot;
        reporting.writeLock().lock();
        try {
            snapshot = records.clone();
            changeListener = listener;
        } finally {
            reporting.writeLock().unlock();
        }
        return new Cursor(snapshot.entrySet().iterator());
    }

    @Override
    public RangeCursor range(byte[] startInclusive, byte[] endExclusive) throws StoreException {
        Objects.requireNonNull(startInclusive, "startInclusive");
        ensureOpen("range");
        if (endExclusive != null && Arrays.compareUnsigned(startInclusive, endExclusive) >= 0) {
            return RangeCursors.empty();
        }
        NavigableMap<byte[], Record> view = endExclusive == null
                ? records.tailMap(startInclusive, true)
                : records.subMap(startInclusive, true, endExclusive, false);
        return new Cursor(view.entrySet().iterator());
    }

    /** Drops every record; later calls throw {@link StoreClosedException}. */
    @Override
    public void close() {
        closed = true;
        records.clear();
    }

    private void ensureOpen(String operation) throws StoreClosedException {
        if (closed) {
            throw new StoreClosedException(operation + " on closed in-memory store");
        }
    }

    /** One thread at a time, as {@link RangeCursor} says. */
    private final class Cursor implements RangeCursor {
        private final Iterator<Map.Entry<byte[], Record>> entries;
        private Map.Entry<byte[], Record> current;
        private boolean cursorClosed;

        Cursor(Iterator<Map.Entry<byte[], Record>> entries) {
            this.entries = entries;
        }

        @Override
        public boolean next() throws StoreException {
            if (cursorClosed) {
                throw new StoreClosedException("range cursor is closed");
            }
            ensureOpen("range next");
            current = entries.hasNext() ? entries.next() : null;
            return current != null;
        }

        @Override
        public byte[] key() {
            return currentEntry().getKey().clone();
        }

        @Override
        public Record record() {
            return currentEntry().getValue();
        }

        @Override
        public void close() {
            cursorClosed = true;
            current = null;
        }

        private Map.Entry<byte[], Record> currentEntry() {
            if (current == null) {
                throw new IllegalStateException("no current entry: call next() and check that it returned true");
            }
            return current;
        }
    }
}
