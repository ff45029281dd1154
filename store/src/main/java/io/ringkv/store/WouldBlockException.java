package io.ringkv.store;

import java.util.EnumMap;
import java.util.Map;

/**
 * An operation asked not to wait would have had to: its answer needs disk I/O, a lock another
 * thread holds, or a write that RocksDB would slow down or stop (a write stall), or the store
 * syncs every write to disk. Nothing was read into the answer or written; the caller does the same
 * with the waiting variant, on a thread that may block.
 *
 * <p>Thrown on the request path whenever data is not in memory, so there is one shared instance
 * per {@link Cause}, without a stack trace.
 */
public final class WouldBlockException extends StoreException {

    /** What the operation would have waited for; counted apart in {@link StorageStats#wouldBlockByCause}. */
    public enum Cause {
        /** A key's lock stripe that another thread holds. */
        KEY_LOCK,
        /** A block that is in no memtable and not in the block cache: a file read. */
        FILE_READ,
        /** RocksDB would slow down or stop the write (too many memtables or level-0 files). */
        WRITE_STALL,
        /** Every write is synced to disk ({@link Durability#POWER_LOSS}). */
        SYNCED_WRITES,
        /** The store is being closed. */
        CLOSING,
        /** The engine cannot answer without waiting at all. */
        UNSUPPORTED;

        /** As a metric label: lower case, words joined by '_'. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final Map<Cause, WouldBlockException> BY_CAUSE = new EnumMap<>(Cause.class);

    static {
        for (Cause cause : Cause.values()) {
            BY_CAUSE.put(cause, new WouldBlockException(cause));
        }
    }

    private final Cause cause;

    private WouldBlockException(Cause cause) {
        super("the operation would have to wait: " + cause.label(), false);
        this.cause = cause;
    }

    /** The shared instance for {@code cause}. */
    public static WouldBlockException of(Cause cause) {
        return BY_CAUSE.get(cause);
    }

    /** What the operation would have waited for. */
    public Cause waitCause() {
        return cause;
    }
}
