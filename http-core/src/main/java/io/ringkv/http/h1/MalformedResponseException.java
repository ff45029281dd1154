package io.ringkv.http.h1;

import java.net.ProtocolException;

/**
 * A response that cannot be parsed or is over a limit; the connection must be closed. A
 * {@link ProtocolException} (so an {@code IOException}), the type the JDK's
 * {@code java.net.http} client raises for a malformed status line or field, so that callers
 * catching it see ours alike.
 */
public final class MalformedResponseException extends ProtocolException {
    private static final long serialVersionUID = 1L;

    private final String reason;

    public MalformedResponseException(String reason) {
        super("malformed HTTP/1.1 response: " + reason);
        this.reason = reason;
    }

    /** A short, stable snake_case token, e.g. {@code invalid_status_line}. */
    public String reason() {
        return reason;
    }
}
