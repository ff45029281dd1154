package io.ringkv.http.client.internal;

import java.io.IOException;

/**
 * Internal retry signal: an exchange failed on a REUSED HTTP/1.1 connection before any byte of a
 * response arrived, so the server most likely closed the idle connection as the request left
 * (RFC 9112 §9.3.1 allows a client to retry then, if the request is idempotent). The network link
 * either retries or reports {@link #getCause()}; this type never reaches the application.
 */
final class StaleConnectionException extends IOException {
    StaleConnectionException(Throwable cause) {
        super("reused connection failed before a response: " + cause.getMessage(), cause);
    }
}
