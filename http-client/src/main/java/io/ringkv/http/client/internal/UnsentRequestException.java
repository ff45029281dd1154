package io.ringkv.http.client.internal;

import java.io.IOException;

/**
 * Internal retry signal: the request never left the client (it waited for a stream on an origin's
 * HTTP/2 connection reached by {@code Upgrade: h2c}, and that connection went away), so
 * {@link NetworkLink} may run it again whatever its method or body; the codec then upgrades anew
 * or sends it as HTTP/1.1. When the retries are used up, {@link #getCause()} is reported; this
 * type never reaches the application.
 */
final class UnsentRequestException extends IOException {
    UnsentRequestException(IOException cause) {
        super("request not sent: " + cause.getMessage(), cause);
    }
}
