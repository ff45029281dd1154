package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.io.IOException;

/**
 * A forward-only stream of (key, record) entries in ascending unsigned key order, tombstones
 * included: one node's share of a range. Not thread-safe: one thread at a time (handing it to
 * another thread needs a happens-before edge, as an executor gives).
 */
public interface RecordStream extends AutoCloseable {

    /** Moves to the next entry; false at the end. */
    boolean next() throws IOException;

    /** The current entry's key; valid after {@link #next()} returned true. */
    byte[] key();

    /** The current entry's record; valid after {@link #next()} returned true. */
    Record record();

    @Override
    void close();
}
