package io.ringkv.http.h1;

/**
 * Size limits for one HTTP/1.1 message head and body. Exceeding a limit is a {@link ParseError}
 * with the status in the component's comment.
 *
 * <p>How bytes are counted, so that "exactly at the limit" is well defined:
 * <ul>
 *   <li>{@code requestLineBytesMax}: the request line without its line terminator (414).</li>
 *   <li>{@code headerBlockBytesMax}: every byte of the header section after the request line,
 *       line terminators and the final empty line included (431). Trailers get the same
 *       budget of their own.</li>
 *   <li>{@code headerCountMax}: number of field lines (431); trailers likewise.</li>
 *   <li>{@code bodyBytesMax}: body bytes after transfer decoding, i.e. the sum of chunk sizes
 *       or the declared Content-Length (413).</li>
 * </ul>
 */
public record H1Limits(int requestLineBytesMax, int headerBlockBytesMax, int headerCountMax, long bodyBytesMax) {

    public H1Limits {
        if (requestLineBytesMax < 1 || headerBlockBytesMax < 2 || headerCountMax < 0 || bodyBytesMax < 0) {
            throw new IllegalArgumentException("limits must be positive: " + requestLineBytesMax + ", "
                    + headerBlockBytesMax + ", " + headerCountMax + ", " + bodyBytesMax);
        }
    }

    /** 8 KiB request line, 32 KiB header section, 100 fields, 16 MiB body. */
    public static H1Limits defaults() {
        return new H1Limits(8 * 1024, 32 * 1024, 100, 16L * 1024 * 1024);
    }
}
