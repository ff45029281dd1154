package io.ringkv.http.h2;

/** An error that ends the connection (RFC 9113 §5.4.1): send GOAWAY, then close. */
public final class ConnectionError extends Http2Error {
    public ConnectionError(ErrorCode code, String reason) {
        super(code, reason);
    }

    @Override
    public String toString() {
        return "ConnectionError[" + code() + ", " + reason() + "]";
    }
}
