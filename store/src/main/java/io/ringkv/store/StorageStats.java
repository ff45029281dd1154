package io.ringkv.store;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a storage engine reports about itself for metrics, read at one moment. Byte counts and
 * {@code writesStopped} are current values; the rest are counts since the engine opened.
 * An engine that cannot tell a value reports 0.
 *
 * @param memtableBytes          bytes in RocksDB's memtables (active, immutable, pinned), all column families
 * @param liveSstBytes           bytes of the SST files the current version uses
 * @param pendingCompactionBytes RocksDB's estimate of the bytes compaction must rewrite to settle
 * @param writesStopped          RocksDB stops writes now (too many memtables or L0 files)
 * @param delayedWriteRate       bytes per second RocksDB slows writes to, 0 while not delayed
 * @param stallMicros            time writers spent stalled by RocksDB (delayed or stopped)
 * @param blockCacheHits         block cache lookups that found their block
 * @param blockCacheMisses       block cache lookups that read the block from disk
 * @param keysRead               point reads of records ({@link StorageEngine#get})
 * @param keysWritten            records stored ({@link StorageEngine#apply} that took the record)
 * @param estimatedKeys          RocksDB's estimate of the keys stored (tombstones included)
 * @param diskBytes              bytes of every file in the data directory (SSTs, WAL, manifest, logs)
 * @param wouldBlockByCause      calls that must not wait ({@link StorageEngine#getNow},
 *                               {@link StorageEngine#applyAllNow}) that would have had to, by what they
 *                               would have waited for; every cause present, 0 if never
 */
public record StorageStats(long memtableBytes, long liveSstBytes, long pendingCompactionBytes, boolean writesStopped,
                           long delayedWriteRate, long stallMicros, long blockCacheHits, long blockCacheMisses,
                           long keysRead, long keysWritten, long estimatedKeys, long diskBytes,
                           Map<WouldBlockException.Cause, Long> wouldBlockByCause) {

    /** Nothing known. */
    public static final StorageStats NONE = new StorageStats(0, 0, 0, false, 0, 0, 0, 0, 0, 0, 0, 0, Map.of());

    public StorageStats {
        Map<WouldBlockException.Cause, Long> complete = new EnumMap<>(WouldBlockException.Cause.class);
        for (WouldBlockException.Cause cause : WouldBlockException.Cause.values()) {
            complete.put(cause, wouldBlockByCause.getOrDefault(cause, 0L));
        }
        wouldBlockByCause = Collections.unmodifiableMap(complete);
    }

    /** Calls that must not wait that would have had to, whatever for. */
    public long wouldBlock() {
        return wouldBlockByCause.values().stream().mapToLong(Long::longValue).sum();
    }
}
