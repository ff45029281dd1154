package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;

/**
 * What the blocking {@code send} throws for a failed call: the same exception type the async
 * future carries, re-created on the caller's thread so its stack trace shows the {@code send}
 * call, with the original as cause (the JDK client does the same).
 */
final class SendFailures {
    private SendFailures() {
    }

    static IOException rethrow(Throwable cause) {
        Throwable error = Failures.unwrap(cause);
        IOException copy;
        if (error instanceof HttpConnectTimeoutException) {
            copy = new HttpConnectTimeoutException(error.getMessage());
        } else if (error instanceof HttpTimeoutException) {
            copy = new HttpTimeoutException(error.getMessage());
        } else if (error instanceof javax.net.ssl.SSLHandshakeException) {
            copy = new javax.net.ssl.SSLHandshakeException(error.getMessage());
        } else if (error instanceof javax.net.ssl.SSLException) {
            copy = new javax.net.ssl.SSLException(error.getMessage());
        } else if (error instanceof ConnectException) {
            copy = new ConnectException(error.getMessage());
        } else if (error instanceof IOException) {
            copy = new IOException(error.getMessage());
        } else if (error instanceof RuntimeException runtime) {
            throw runtime;
        } else if (error instanceof Error fatal) {
            throw fatal;
        } else {
            copy = new IOException(error.getMessage());
        }
        copy.initCause(error);
        return copy;
    }
}
