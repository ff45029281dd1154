package io.ringkv.http.h1;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Accumulates one line terminated by LF, across as many input buffers as it takes.
 *
 * <p>Line endings (RFC 9112 §2.2): CRLF always; a bare LF only where the caller allows it (we
 * accept it in the start line and field sections, where §2.2 lets a recipient do so, and refuse
 * it in chunked framing, where lenient parsing is a known request-smuggling vector). A CR that
 * is not followed by LF is always rejected ({@code bare_cr}).
 *
 * <p>The limit counts every byte of the line including its terminator and is checked before a
 * byte is buffered, so a hostile peer cannot make the buffer grow past it.
 *
 * <p>Threading: confined to the owning parser.
 */
final class LineReader {
    private static final int INITIAL_CAPACITY = 128;

    private byte[] line = new byte[INITIAL_CAPACITY];
    /** Bytes buffered for the current line; after a completed read, the content length. */
    private int length;
    private int consumed;
    private boolean complete;

    /**
     * Reads up to and including the next LF.
     *
     * @return true when a whole line is available through {@link #bytes()} and {@link #length()}
     *         (terminator stripped); false when every remaining input byte was buffered
     */
    boolean read(ByteBuffer in, int bytesMax, boolean crlfRequired, H1ParseException overLimit)
            throws H1ParseException {
        if (complete) {
            complete = false;
            length = 0;
        }
        int start = in.position();
        int end = in.limit();
        boolean afterCr = length > 0 && line[length - 1] == HttpChars.CR;
        for (int i = start; i < end; i++) {
            if (length + (i - start) + 1 > bytesMax) {
                throw overLimit;
            }
            byte b = in.get(i);
            if (afterCr && b != HttpChars.LF) {
                throw H1ParseException.badRequest("bare_cr");
            }
            if (b == HttpChars.LF) {
                append(in, start, i - start);
                in.position(i + 1);
                return finish(afterCr, crlfRequired);
            }
            afterCr = b == HttpChars.CR;
        }
        append(in, start, end - start);
        in.position(end);
        return false;
    }

    /** The line's bytes, valid in {@code [0, length())} until the next read. */
    byte[] bytes() {
        return line;
    }

    int length() {
        return length;
    }

    /** Bytes the last completed line took on the wire, terminator included. */
    int consumed() {
        return consumed;
    }

    private boolean finish(boolean endsWithCr, boolean crlfRequired) throws H1ParseException {
        if (!endsWithCr && crlfRequired) {
            throw H1ParseException.badRequest("bare_lf");
        }
        consumed = length + 1;
        if (endsWithCr) {
            length--;
        }
        complete = true;
        return true;
    }

    private void append(ByteBuffer in, int from, int count) {
        if (length + count > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, length + count));
        }
        in.get(from, line, length, count);
        length += count;
    }
}
