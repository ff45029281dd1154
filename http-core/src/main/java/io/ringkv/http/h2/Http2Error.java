package io.ringkv.http.h2;

/**
 * A violation of RFC 9113 found while processing input. The subtype says its scope:
 * a {@link StreamError} is answered with RST_STREAM and the connection lives on; a
 * {@link ConnectionError} is answered with GOAWAY and the connection is closed.
 *
 * <p>{@link #reason()} is a short, stable snake_case token, usable as log text and as GOAWAY
 * debug data.
 */
public abstract sealed class Http2Error extends Exception permits StreamError, ConnectionError {
    private final ErrorCode code;
    private final String reason;

    Http2Error(ErrorCode code, String reason) {
        super(reason);
        this.code = code;
        this.reason = reason;
    }

    public ErrorCode code() {
        return code;
    }

    public String reason() {
        return reason;
    }
}
