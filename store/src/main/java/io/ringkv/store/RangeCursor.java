package io.ringkv.store;

/**
 * A forward-only, lazily-read view of a key range. Not thread-safe: one thread at a time (it may
 * be handed from thread to thread with a happens-before edge, e.g. through an executor).
 */
public interface RangeCursor extends AutoCloseable {

    /** Moves to the next entry; false at the end of the range. */
    boolean next() throws StoreException;

    /** The current entry's key; valid after {@link #next()} returned true. */
    byte[] key();

    /** The current entry's record; valid after {@link #next()} returned true. */
    Record record();

    @Override
    void close();
}
