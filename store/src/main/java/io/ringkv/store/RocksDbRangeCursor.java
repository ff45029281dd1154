package io.ringkv.store;

import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Slice;

/**
 * A lazy range over a {@link RocksIterator} bounded by {@code ReadOptions.setIterateUpperBound},
 * so RocksDB itself stops at the end key and never reads past it. It sees the database as of
 * its creation (the iterator pins an implicit snapshot). Only the current entry is held on the
 * heap; RocksDB holds the blocks being read.
 *
 * <p>Threading: one thread at a time, as {@link RangeCursor} says. Every step runs under the
 * engine's lifecycle read lock, and the engine closes a cursor left open under its write lock,
 * so native handles are freed exactly once and never used after that.
 *
 * <pre>
 *   UNSTARTED --next--> POSITIONED --next (end of range)--> EXHAUSTED (natives freed)
 *   any --close / engine close--> CLOSED (natives freed)
 * </pre>
 */
final class RocksDbRangeCursor implements RangeCursor {

    private enum State { UNSTARTED, POSITIONED, EXHAUSTED, CLOSED }

    private final RocksDbStorageEngine engine;
    private final byte[] start;
    private final ReadOptions readOptions;
    private final Slice upperBound;
    private final RocksIterator iterator;
    private State state = State.UNSTARTED;
    private byte[] key;
    private Record record;

    private RocksDbRangeCursor(RocksDbStorageEngine engine, byte[] start, ReadOptions readOptions, Slice upperBound,
                               RocksIterator iterator) {
        this.engine = engine;
        this.start = start.clone();
        this.readOptions = readOptions;
        this.upperBound = upperBound;
        this.iterator = iterator;
    }

    /** Call under the engine's lifecycle read lock. {@code endExclusive} may be null. */
    static RocksDbRangeCursor open(RocksDbStorageEngine engine, RocksDB db, byte[] start, byte[] endExclusive) {
        ReadOptions readOptions = new ReadOptions();
        Slice upperBound = null;
        try {
            if (endExclusive != null) {
                upperBound = new Slice(endExclusive);
                readOptions.setIterateUpperBound(upperBound);
            }
            return new RocksDbRangeCursor(engine, start, readOptions, upperBound, db.newIterator(readOptions));
        } catch (RuntimeException | Error e) {
            readOptions.close();
            if (upperBound != null) {
                upperBound.close();
            }
            throw e;
        }
    }

    @Override
    public boolean next() throws StoreException {
        return engine.guarded("range next", key == null ? start : key, this::advance);
    }

    @Override
    public byte[] key() {
        requirePositioned();
        return key;
    }

    @Override
    public Record record() {
        requirePositioned();
        return record;
    }

    @Override
    public void close() {
        engine.closeCursor(this);
    }

    /** Frees the native handles once; called under the engine's lifecycle lock. */
    void releaseNatives() {
        release(State.CLOSED);
    }

    private boolean advance() throws RocksDBException, StoreException {
        switch (state) {
            case CLOSED -> throw new StoreClosedException("range cursor is closed");
            case EXHAUSTED -> {
                return false;
            }
            case UNSTARTED -> iterator.seek(start);
            case POSITIONED -> iterator.next();
        }
        if (!iterator.isValid()) {
            return finish();
        }
        key = iterator.key();
        record = RocksDbStorageEngine.decode(key, iterator.value());
        state = State.POSITIONED;
        return true;
    }

    /** The iterator stopped: at the end of the range, or because of an error that status() throws. */
    private boolean finish() throws RocksDBException {
        try {
            iterator.status();
        } catch (RocksDBException e) {
            release(State.CLOSED);
            engine.forgetCursor(this);
            throw e;
        }
        // Free the natives as soon as the range is done, not when the caller gets round to close().
        release(State.EXHAUSTED);
        engine.forgetCursor(this);
        return false;
    }

    private void release(State terminal) {
        boolean alreadyReleased = state == State.EXHAUSTED || state == State.CLOSED;
        state = alreadyReleased && terminal == State.EXHAUSTED ? state : terminal;
        if (alreadyReleased) {
            return;
        }
        iterator.close();
        readOptions.close();
        if (upperBound != null) {
            upperBound.close();
        }
    }

    private void requirePositioned() {
        if (key == null || state != State.POSITIONED) {
            throw new IllegalStateException("no current entry: call next() and check that it returned true");
        }
    }
}
