package io.ringkv.http.h1;

import java.io.IOException;

/**
 * A response that cannot be parsed or is over a limit. An {@link IOException}, since that is
 * what {@code java.net.http} callers expect for a broken exchange; the connection must be
 * closed.
 */
public final class MalformedResponseException extends IOException {
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
