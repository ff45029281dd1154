package io.ringkv.store;

/**
 * Told of every change a {@link StorageEngine} makes to a key's record, so that a summary of the
 * data (anti-entropy's digest) can be kept up to date per write instead of recomputed by scans.
 * Each change reports exactly the record it replaced; changes to one key may be reported from
 * different threads, in any order relative to changes of other keys.
 *
 * <p>Threading: called on the thread that made the change, after it is stored; must be cheap and
 * must not call back into the engine.
 */
@FunctionalInterface
public interface RecordChangeListener {

    /** Listens to nothing. */
    RecordChangeListener NONE = (key, before, after) -> {
    };

    /**
     * @param key    the key (do not modify; it may be kept, its writer does not modify it either)
     * @param before the record replaced, or null when the key had none
     * @param after  the record now stored, or null when it was removed ({@link StorageEngine#purge})
     */
    void changed(byte[] key, Record before, Record after);
}
