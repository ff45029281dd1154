package io.ringkv.http.client.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Exception plumbing shared by the client: futures wrap, the API reports the original. */
final class Failures {
    private Failures() {
    }

    /** Strips the CompletionException/ExecutionException wrappers that future stages add, and the
     * UncheckedIOException that carries an IOException out of a lambda. */
    static Throwable unwrap(Throwable error) {
        Throwable current = error;
        while ((current instanceof CompletionException || current instanceof ExecutionException
                || current instanceof java.io.UncheckedIOException) && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
