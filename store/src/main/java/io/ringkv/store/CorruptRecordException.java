package io.ringkv.store;

/**
 * Stored bytes could not be decoded into a {@link Record}: disk corruption or a format this
 * version does not know (a downgrade after a newer version wrote). Retrying will not help.
 */
public final class CorruptRecordException extends StoreException {
    public CorruptRecordException(String message) {
        super(message);
    }
}
