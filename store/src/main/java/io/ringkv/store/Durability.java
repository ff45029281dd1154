package io.ringkv.store;

/**
 * When a write is durable relative to the moment {@link StorageEngine#apply} returns.
 */
public enum Durability {
    /**
     * Written to the write-ahead log (in the OS page cache) before {@code apply} returns:
     * survives the process being killed (SIGKILL, OOM-kill, crash), not a power loss or kernel
     * panic. The default: the guarantee the API promises, at a fraction of fsync's cost.
     */
    PROCESS_CRASH,
    /**
     * The write-ahead log is fsynced before {@code apply} returns: also survives power loss, at
     * the cost of one fsync per write (group commit amortises it under concurrency).
     */
    POWER_LOSS
}
