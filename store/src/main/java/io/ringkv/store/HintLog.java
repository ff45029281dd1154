package io.ringkv.store;

import java.util.List;
import java.util.Map;

/**
 * Durable hints for hinted handoff, kept apart from the data (RocksDB: a column family of their
 * own), grouped by target replica and ordered by creation within a target.
 *
 * <p>A stored hint that cannot be decoded (disk corruption, a format this version does not know)
 * is skipped, deleted and counted ({@link #corruptSkipped}), never returned and never a failure:
 * it cannot be replayed anyway, and anti-entropy brings its write to the target.
 *
 * <p>Threading: thread-safe; every method may block on disk I/O (never call from an event loop).
 * Bounds (how many hints per target, how many bytes, how old) are the caller's policy; this log
 * only counts.
 */
public interface HintLog {

    /** Stores a hint for {@code target}; durable when this returns, per the engine's durability. */
    Hint add(String target, byte[] key, Record record, long nowMillis) throws StoreException;

    /** Up to {@code limit} of {@code target}'s hints, oldest first. */
    default List<Hint> oldest(String target, int limit) throws StoreException {
        return oldest(target, limit, Long.MAX_VALUE);
    }

    /**
     * Up to {@code limit} of {@code target}'s hints, oldest first, whose {@link Hint#sizeBytes}
     * add up to at most {@code bytesMax}; the oldest hint comes even when it alone is larger, so
     * a large hint is never stuck behind the bound.
     */
    List<Hint> oldest(String target, int limit, long bytesMax) throws StoreException;

    /** Deletes the given hints (e.g. once their target took them). Absent ones are ignored. */
    void remove(List<Hint> hints) throws StoreException;

    /** How many hints {@code target} has; cheap enough to call per hint. */
    long count(String target);

    /** The {@link Hint#sizeBytes} of {@code target}'s hints together; cheap enough to call per hint. */
    long bytes(String target);

    /** How many hints each target has; targets without hints are absent. */
    Map<String, Long> counts();

    /** Stored hints found undecodable, skipped and deleted since the log opened. */
    long corruptSkipped();
}
