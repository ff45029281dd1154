package io.ringkv.http.h1;

/**
 * Terminal: the connection must answer {@code status} and close. The parser keeps returning
 * this same event.
 *
 * @param status 400, 413, 414, 431, 501 (unsupported transfer coding) or 505 (HTTP version)
 * @param reason a short, stable snake_case token, e.g. {@code content_length_with_transfer_encoding}
 */
public record ParseError(int status, String reason) implements H1Event {
}
