package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;

/**
 * Encodes HTTP/1.1 requests: the request line and header section, and the chunked coding
 * pieces (the same as {@link ResponseWriter}'s). Pure encoding helpers, no state. Host and the
 * framing headers (Content-Length or Transfer-Encoding) are the caller's choice; RFC 9112 §3.2
 * requires Host on every HTTP/1.1 request.
 */
public final class RequestWriter {
    private RequestWriter() {
    }

    /**
     * {@code "GET /path HTTP/1.1\r\n"} + one line per field + {@code "\r\n"}.
     *
     * @throws IllegalArgumentException for a method that is not a token, a target that is empty
     *         or has bytes other than visible ASCII, or an invalid field (see {@link ResponseWriter#head})
     */
    public static ByteBuffer head(String method, String target, Headers headers) {
        if (!ListValues.isToken(method)) {
            throw new IllegalArgumentException("method is not a token: " + method);
        }
        if (target.isEmpty() || !isVisibleAscii(target)) {
            throw new IllegalArgumentException("request target must be non-empty visible ASCII: " + target);
        }
        return HeadEncoder.encodeRequest(method, target, headers);
    }

    /** A loop, not {@code chars().allMatch}: it runs on every request, and a stream allocates. */
    private static boolean isVisibleAscii(String target) {
        for (int i = 0; i < target.length(); i++) {
            if (!HttpChars.isVisibleAscii(target.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Hex size + CRLF; size must be positive. */
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
