package io.ringkv.store;

import java.util.Objects;

/**
 * Settings of a {@link RocksDbStorageEngine}. Start from {@link #defaults()} and change what you
 * need with the {@code with*} methods (new settings may be added; the canonical constructor may
 * grow, the withers will not change).
 *
 * @param durability        when a write is durable; default {@link Durability#PROCESS_CRASH}
 * @param blockCacheBytes   RocksDB block cache (uncompressed data blocks; index and filter blocks
 *                          stay in each open table's memory, outside it);
 *                          default 64 MiB
 * @param writeBufferBytes  size of one memtable before it is flushed to an SST file; default
 *                          64 MiB (RocksDB may hold up to two of them while flushing)
 * @param backgroundJobsMax RocksDB flush + compaction threads; default 2
 * @param lockStripes       number of locks that make read-compare-write atomic per key (a power
 *                          of two); default 1024
 */
public record StoreConfig(Durability durability, long blockCacheBytes, long writeBufferBytes,
                          int backgroundJobsMax, int lockStripes) {

    public static final long DEFAULT_BLOCK_CACHE_BYTES = 64L << 20;
    public static final long DEFAULT_WRITE_BUFFER_BYTES = 64L << 20;
    public static final int DEFAULT_BACKGROUND_JOBS_MAX = 2;
    public static final int DEFAULT_LOCK_STRIPES = 1024;
    /** Upper bound of {@link #lockStripes}: more buys no concurrency, only memory. */
    public static final int LOCK_STRIPES_MAX = 1 << 16;

    public StoreConfig {
        Objects.requireNonNull(durability, "durability");
        require(blockCacheBytes >= 0, "blockCacheBytes must be >= 0: " + blockCacheBytes);
        require(writeBufferBytes >= (1 << 20), "writeBufferBytes must be >= 1 MiB: " + writeBufferBytes);
        require(backgroundJobsMax >= 1, "backgroundJobsMax must be >= 1: " + backgroundJobsMax);
        require(lockStripes >= 1 && lockStripes <= LOCK_STRIPES_MAX && Integer.bitCount(lockStripes) == 1,
                "lockStripes must be a power of two in [1, " + LOCK_STRIPES_MAX + "]: " + lockStripes);
    }

    public static StoreConfig defaults() {
        return new StoreConfig(Durability.PROCESS_CRASH, DEFAULT_BLOCK_CACHE_BYTES, DEFAULT_WRITE_BUFFER_BYTES,
                DEFAULT_BACKGROUND_JOBS_MAX, DEFAULT_LOCK_STRIPES);
    }

    public StoreConfig withDurability(Durability value) {
        return new StoreConfig(value, blockCacheBytes, writeBufferBytes, backgroundJobsMax, lockStripes);
    }

    public StoreConfig withBlockCacheBytes(long value) {
        return new StoreConfig(durability, value, writeBufferBytes, backgroundJobsMax, lockStripes);
    }

    public StoreConfig withWriteBufferBytes(long value) {
        return new StoreConfig(durability, blockCacheBytes, value, backgroundJobsMax, lockStripes);
    }

    public StoreConfig withBackgroundJobsMax(int value) {
        return new StoreConfig(durability, blockCacheBytes, writeBufferBytes, value, lockStripes);
    }

    public StoreConfig withLockStripes(int value) {
        return new StoreConfig(durability, blockCacheBytes, writeBufferBytes, backgroundJobsMax, value);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
