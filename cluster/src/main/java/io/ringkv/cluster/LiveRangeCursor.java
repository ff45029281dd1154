package io.ringkv.cluster;

import java.io.IOException;

/**
 * A range as clients see it, record by record: each key once, with its freshest value, deleted
 * keys left out, in ascending unsigned key order. For callers that shape the answer themselves
 * (a page of it, keys without values) rather than take the whole range in the public format.
 *
 * <p>Not thread-safe; {@link #advance()} may block on a peer's stream, so call it on an executor
 * thread, never an event loop.
 */
public interface LiveRangeCursor extends AutoCloseable {

    /** Moves to the next live record; false at the end. */
    boolean advance() throws IOException;

    /** The current record's key; valid until the next {@link #advance()} or {@link #close()}. Do not modify. */
    byte[] key();

    /** The current record's value; valid until the next {@link #advance()} or {@link #close()}. Do not modify. */
    byte[] value();

    @Override
    void close();
}
