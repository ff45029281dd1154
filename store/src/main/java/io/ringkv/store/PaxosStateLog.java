package io.ringkv.store;

import java.util.List;

/**
 * Each key's {@link PaxosState}, kept beside the data but apart from it: ranges, digests,
 * anti-entropy and the public API never see it.
 *
 * <p>Threading: thread-safe, blocks on disk I/O. It does not serialise a read and the write that
 * follows it: the caller holds a per-key lock across both.
 */
public interface PaxosStateLog {

    /** The key's state, {@link PaxosState#EMPTY} when none is stored. */
    PaxosState get(byte[] key) throws StoreException;

    /**
     * Stores the key's state; in the write-ahead log, with the data's durability, when this
     * returns, so a promise or acceptance is never answered before it would survive the process.
     */
    void put(byte[] key, PaxosState state) throws StoreException;

    /**
     * Up to {@code limit} keys from {@code startInclusive} on, in key order, each with the ballot
     * it promised: one page of a scan that reads the log as of this call. A state that does not
     * decode is reported with promise {@code -1}, so a sweep can count it rather than stop.
     *
     * @param startInclusive the first key to report, or an empty array for the start of the log
     */
    List<Promised> promisedFrom(byte[] startInclusive, int limit) throws StoreException;

    /** Removes the key's state (the caller holds the key's lock, and has checked it may go). */
    void remove(byte[] key) throws StoreException;

    /** One key of a {@link #promisedFrom} page and the ballot its state promised. */
    record Promised(byte[] key, long promised) {
    }
}
