package io.ringkv.http.h1;

import io.ringkv.http.Headers;

/**
 * A 1xx response other than 101 (RFC 9110 §15.2), e.g. 100 Continue or 103 Early Hints. It has
 * no body; the final response to the same request follows.
 */
public record InterimResponse(int status, Headers headers) implements H1ResponseEvent {
}
