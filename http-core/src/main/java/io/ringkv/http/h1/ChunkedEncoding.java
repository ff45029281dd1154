package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;

/**
 * The chunked transfer coding, write side (RFC 9112 §7.1), shared by {@link ResponseWriter} and
 * {@link RequestWriter}. Stateless; shared constants are handed out as read-only duplicates, so
 * callers may consume them freely.
 */
final class ChunkedEncoding {
    private static final ByteBuffer CRLF = ByteBuffer.wrap("\r\n".getBytes(ISO_8859_1)).asReadOnlyBuffer();
    private static final ByteBuffer LAST_CHUNK = ByteBuffer.wrap("0\r\n\r\n".getBytes(ISO_8859_1)).asReadOnlyBuffer();

    private ChunkedEncoding() {
    }

    /** {@code hex(size) CRLF}; size must be positive (a zero size is the last chunk). */
    static ByteBuffer chunkHeader(int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("chunk size must be positive, got " + size + "; use lastChunk()");
        }
        return ByteBuffer.wrap((Integer.toHexString(size) + "\r\n").getBytes(ISO_8859_1));
    }

    /** The CRLF that ends chunk data. */
    static ByteBuffer chunkTrailer() {
        return CRLF.duplicate();
    }

    /** {@code 0 CRLF CRLF}: the last chunk with no trailer fields. */
    static ByteBuffer lastChunk() {
        return LAST_CHUNK.duplicate();
    }

    /** {@code 0 CRLF} trailer fields {@code CRLF} (RFC 9112 §7.1.2). */
    static ByteBuffer lastChunk(Headers trailers) {
        return trailers.size() == 0 ? lastChunk() : HeadEncoder.encode("0", trailers);
    }
}
