package io.ringkv.http.h1;

import io.ringkv.http.Headers;

/**
 * The status line and header section of a final response.
 *
 * @param status        100-599 (101 Switching Protocols is final: see {@link Framing#SWITCHED})
 * @param reason        the reason phrase as sent, possibly empty; carries no meaning (RFC 9112 §4)
 * @param minorVersion  0 or 1 (a higher 1.x minor is reported as 1)
 * @param headers       the header fields in wire order
 * @param keepAlive     whether the connection can carry another exchange after this one
 * @param framing       how the body is delimited
 * @param contentLength the body length for {@link Framing#LENGTH}, 0 for {@link Framing#NONE}
 *                      and {@link Framing#SWITCHED}, -1 otherwise
 */
public record ResponseHead(int status, String reason, int minorVersion, Headers headers, boolean keepAlive,
                           Framing framing, long contentLength) implements H1ResponseEvent {

    /** How a response body is delimited, RFC 9112 §6.3. */
    public enum Framing {
        /** No body: a HEAD request, 204, 304, or Content-Length 0. */
        NONE,
        /** Content-Length bytes. */
        LENGTH,
        /** The chunked coding; may end with trailers. */
        CHUNKED,
        /** Everything until the server closes: {@link ResponseParser#endOfInput()} ends the message. */
        UNTIL_CLOSE,
        /**
         * 101 Switching Protocols, or a 2xx answer to CONNECT: after this head's MessageEnd the
         * connection speaks another protocol, and the parser leaves the remaining bytes alone.
         */
        SWITCHED
    }
}
