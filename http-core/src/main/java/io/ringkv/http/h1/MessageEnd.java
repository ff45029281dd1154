package io.ringkv.http.h1;

import io.ringkv.http.Headers;

/**
 * End of one message. The parser is then ready for the next pipelined message.
 *
 * @param trailers the trailer section of a chunked body (RFC 9112 §7.1.2), otherwise empty.
 *                 Trailers are reported as received; they never change the framing.
 */
public record MessageEnd(Headers trailers) implements H1Event, H1ResponseEvent {
}
