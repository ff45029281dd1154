package io.ringkv.http.h1;

/**
 * Parses a chunk-size line, RFC 9112 §7.1: {@code chunk-size [ chunk-ext ] CRLF}. Stateless.
 *
 * <p>Extensions are accepted and ignored (§7.1.1: recipients MUST ignore unrecognized ones) but
 * bounded by {@link #LINE_BYTES_MAX}; they must start with {@code ;} after optional whitespace
 * and contain no control characters.
 */
final class ChunkSizeLine {
    /** Longest chunk-size line, extensions and CRLF included. */
    static final int LINE_BYTES_MAX = 1024;
    /** The largest size we can shift another hex digit into without overflowing a long. */
    private static final long SIZE_BEFORE_LAST_DIGIT_MAX = Long.MAX_VALUE >>> 4;

    private ChunkSizeLine() {
    }

    /** @return the chunk size of {@code line[0, length)} */
    static long parse(byte[] line, int length) throws H1ParseException {
        long size = 0;
        int i = 0;
        for (; i < length && HttpChars.hexValue(line[i]) >= 0; i++) {
            if (size > SIZE_BEFORE_LAST_DIGIT_MAX) {
                throw H1ParseException.badRequest("chunk_size_overflow");
            }
            size = (size << 4) | HttpChars.hexValue(line[i]);
        }
        if (i == 0) {
            throw H1ParseException.badRequest("invalid_chunk_size");
        }
        checkExtensions(line, i, length);
        return size;
    }

    private static void checkExtensions(byte[] line, int from, int length) throws H1ParseException {
        int i = from;
        while (i < length && HttpChars.isWhitespace(line[i])) {
            i++;
        }
        if (i == length) {
            if (i > from) {
                throw H1ParseException.badRequest("invalid_chunk_size");  // trailing whitespace, no extension
            }
            return;
        }
        if (line[i] != ';') {
            throw H1ParseException.badRequest("invalid_chunk_size");
        }
        for (; i < length; i++) {
            if (!HttpChars.isFieldValueByte(line[i])) {
                throw H1ParseException.badRequest("invalid_chunk_extension");
            }
        }
    }
}
