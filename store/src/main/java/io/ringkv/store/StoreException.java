package io.ringkv.store;

/** The storage engine could not complete an operation; the caller should answer 5xx. */
public class StoreException extends Exception {
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public StoreException(String message) {
        super(message);
    }

    /** For a subclass thrown often and on purpose, whose stack trace would tell nothing. */
    protected StoreException(String message, boolean withStackTrace) {
        super(message, null, false, withStackTrace);
    }
}
