package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;

/**
 * Encodes HTTP/1.1 responses: the status line and header section, and the chunked coding
 * pieces. Pure encoding helpers, no state; framing headers (Content-Length or
 * Transfer-Encoding, Connection) are the caller's choice.
 *
 * <p>A chunked body is {@code chunkHeader(n)}, n bytes, {@code chunkTrailer()}, repeated, then
 * {@code lastChunk()}. Returned buffers are ready to write (position 0); shared constants come
 * back as read-only duplicates.
 */
public final class ResponseWriter {
    private ResponseWriter() {
    }

    /**
     * {@code "HTTP/1.1 200 OK\r\n"} + one line per field + {@code "\r\n"}.
     *
     * @throws IllegalArgumentException for a status outside 100-999, a field name that is not a
     *         token, or a value with CR, LF, another control character or a char above 0xFF
     */
    public static ByteBuffer head(int status, Headers headers) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must have three digits: " + status);
        }
        // RFC 9112 §4: the reason-phrase may be empty, but the SP before it is required.
        return HeadEncoder.encode("HTTP/1.1 " + status + " " + StatusReasons.phrase(status), headers);
    }

    /** Hex size + CRLF. */
    public static ByteBuffer chunkHeader(int size) {
        return ChunkedEncoding.chunkHeader(size);
    }

    /** The CRLF after chunk data (a read-only shared buffer, fresh position each call). */
    public static ByteBuffer chunkTrailer() {
        return ChunkedEncoding.chunkTrailer();
    }

    /** {@code "0\r\n\r\n"}. */
    public static ByteBuffer lastChunk() {
        return ChunkedEncoding.lastChunk();
    }

    /** The last chunk followed by trailer fields (RFC 9112 §7.1.2). */
    public static ByteBuffer lastChunk(Headers trailers) {
        return ChunkedEncoding.lastChunk(trailers);
    }
}
