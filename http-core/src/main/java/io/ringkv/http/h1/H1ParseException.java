package io.ringkv.http.h1;

/**
 * A malformed or over-limit HTTP/1.1 message, raised inside the codec and turned into a
 * {@link ParseError} (requests) at the parser's edge. No stack trace: it is an expected outcome
 * of hostile input, not a bug, and must stay cheap.
 */
final class H1ParseException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String reason;

    H1ParseException(int status, String reason) {
        super(status + " " + reason, null, false, false);
        this.status = status;
        this.reason = reason;
    }

    static H1ParseException badRequest(String reason) {
        return new H1ParseException(400, reason);
    }

    int status() {
        return status;
    }

    String reason() {
        return reason;
    }
}
