package io.ringkv.store;

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
}
