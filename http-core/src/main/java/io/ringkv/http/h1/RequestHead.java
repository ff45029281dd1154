package io.ringkv.http.h1;

import io.ringkv.http.Headers;

/**
 * The request line and header section of one request.
 *
 * @param method        a token, case preserved (methods are case-sensitive, RFC 9110 §9.1)
 * @param target        the request-target exactly as sent (origin, absolute, authority or asterisk form)
 * @param minorVersion  0 or 1; a higher HTTP/1.x minor is reported as 1 (RFC 9112 §2.3: process
 *                      it as the highest minor version we implement)
 * @param headers       the header fields in wire order; the parser does not touch them again
 * @param keepAlive     whether the connection may carry another request after this one
 *                      (RFC 9112 §9.3)
 * @param expectContinue {@code Expect: 100-continue} on an HTTP/1.1 request (RFC 9110 §10.1.1)
 * @param contentLength declared length, 0 when there is no body, -1 when chunked
 */
public record RequestHead(String method, String target, int minorVersion, Headers headers,
                          boolean keepAlive, boolean expectContinue, long contentLength) implements H1Event {

    /** The body is chunked: its length is known only at {@link MessageEnd}. */
    public boolean chunked() {
        return contentLength < 0;
    }
}
