package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;

/**
 * Reads the parts of a message head that requests and responses share: the start line's bytes,
 * bounded by {@link H1Limits#requestLineBytesMax()}, and the header section. What the start line
 * means (request line or status line) is the owning parser's business, as are the rules that
 * follow from the head (Host, framing, keep-alive).
 *
 * <p>Threading: confined to the owning parser. Allocates only its line buffers, at construction
 * and when a line outgrows them, so a parser's hot path stays as lean as before.
 */
final class MessageHeadReader {
    private final LineReader startLine = new LineReader();
    private final int startLineBytesMax;
    private final H1ParseException startLineTooLong;
    private final FieldSectionReader headerSection;

    /**
     * @param startLineTooLong thrown for a start line over the limit (a request's 414, a
     *                         response's {@code status_line_too_long})
     * @param unfold           see {@link FieldSectionReader}: a response's obsolete line folding
     *                         is replaced by a space, a request's is refused
     */
    MessageHeadReader(H1Limits limits, H1ParseException startLineTooLong, boolean unfold) {
        this.startLineBytesMax = limits.requestLineBytesMax();
        this.startLineTooLong = startLineTooLong;
        this.headerSection = new FieldSectionReader(limits.headerBlockBytesMax(), limits.headerCountMax(), 431, "header", unfold);
    }

    /**
     * Reads up to the end of the start line (a bare LF accepted, RFC 9112 §2.2).
     *
     * @return true when a whole line, possibly empty, is in {@link #startLineBytes()} and
     *         {@link #startLineLength()}; false when every remaining input byte was buffered
     */
    boolean readStartLine(ByteBuffer in) throws H1ParseException {
        // +2: the limit is on the line itself, not its CRLF.
        if (!startLine.read(in, startLineBytesMax + 2, false, startLineTooLong)) {
            return false;
        }
        if (startLine.length() > startLineBytesMax) {
            throw startLineTooLong;
        }
        return true;
    }

    /** The start line just read, without its terminator; valid until the next read. */
    byte[] startLineBytes() {
        return startLine.bytes();
    }

    int startLineLength() {
        return startLine.length();
    }

    /** @return the header section once its empty line is read, else null (all input buffered) */
    Headers readHeaderSection(ByteBuffer in) throws H1ParseException {
        return headerSection.read(in);
    }
}
