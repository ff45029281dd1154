package io.ringkv.store;

/**
 * An operation asked not to wait would have had to: its answer needs disk I/O, a lock another
 * thread holds, or a write that RocksDB would slow down or stop (a write stall), or the store
 * syncs every write to disk. Nothing was read into the answer or written; the caller does the same
 * with the waiting variant, on a thread that may block.
 *
 * <p>Thrown on the request path whenever data is not in memory, so it is one shared instance
 * without a stack trace.
 */
public final class WouldBlockException extends StoreException {
    public static final WouldBlockException INSTANCE = new WouldBlockException();

    private WouldBlockException() {
        super("the operation would have to wait", false);
    }
}
