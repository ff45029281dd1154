package io.ringkv.http.client.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
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

    /**
     * The exception {@code send} throws for {@code cause}: returned when it is an IOException,
     * thrown when it is unchecked. As the JDK's client (25): IllegalArgumentException and
     * SecurityException stay what they are; timeouts, ConnectException, the SSL exceptions and
     * ProtocolException keep their type; any other failure, a RuntimeException of the body handler
     * included, becomes an IOException. An Error is not wrapped: it propagates as it is.
     */
    static IOException rethrow(Throwable cause) {
        Throwable error = Failures.unwrap(cause);
        String message = error.getMessage();
        if (error instanceof IllegalArgumentException) {
            throw new IllegalArgumentException(message, error);
        } else if (error instanceof SecurityException) {
            throw new SecurityException(message, error);
        } else if (error instanceof Error fatal) {
            throw fatal;
        }
        IOException copy;
        if (error instanceof HttpConnectTimeoutException) {
            copy = new HttpConnectTimeoutException(message);
        } else if (error instanceof HttpTimeoutException) {
            copy = new HttpTimeoutException(message);
        } else if (error instanceof ConnectException) {
            copy = new ConnectException(message);
        } else if (error instanceof javax.net.ssl.SSLHandshakeException) {
            copy = new javax.net.ssl.SSLHandshakeException(message);
        } else if (error instanceof javax.net.ssl.SSLException) {
            copy = new javax.net.ssl.SSLException(message);
        } else if (error instanceof ProtocolException) {
            copy = new ProtocolException(message);
        } else {
            copy = new IOException(message);
        }
        copy.initCause(error);
        return copy;
    }
}
