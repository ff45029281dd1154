package io.ringkv.store;

import java.util.List;
import java.util.Map;

/**
 * Durable hints for hinted handoff, kept apart from the data (RocksDB: a column family of their
 * own), grouped by target replica and ordered by creation within a target.
 *
 * <p>Threading: thread-safe; every method may block on disk I/O (never call from an event loop).
 * Bounds (how many hints per target, how old) are the caller's policy; this log only counts.
 */
public interface HintLog {

    /** Stores a hint for {@code target}; durable when this returns, per the engine's durability. */
    Hint add(String target, byte[] key, Record record, long nowMillis) throws StoreException;

    /** Up to {@code limit} of {@code target}'s hints, oldest first. */
    List<Hint> oldest(String target, int limit) throws StoreException;

    /** Deletes the given hints (e.g. once their target took them). Absent ones are ignored. */
    void remove(List<Hint> hints) throws StoreException;

    /** How many hints {@code target} has; cheap enough to call per hint. */
    long count(String target);

    /** How many hints each target has; targets without hints are absent. */
    Map<String, Long> counts();
}
