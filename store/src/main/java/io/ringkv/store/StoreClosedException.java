package io.ringkv.store;

/** The engine (or the cursor) was closed; the operation did not run. Not retryable on this engine. */
public final class StoreClosedException extends StoreException {
    public StoreClosedException(String message) {
        super(message);
    }
}
