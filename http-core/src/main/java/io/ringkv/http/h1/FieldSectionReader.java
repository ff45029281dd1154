package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;

/**
 * Reads a field section (header or trailer section) up to and including its empty line,
 * resumable at any byte. Limits on total bytes and field count are checked before buffering.
 *
 * <p>Threading: confined to the owning parser.
 */
final class FieldSectionReader {
    private final LineReader lines = new LineReader();
    private final FieldValueCache values = new FieldValueCache();
    private final int bytesMax;
    private final int countMax;
    private final H1ParseException tooLarge;
    private final H1ParseException tooMany;
    private final boolean unfold;

    private int bytesUsed;
    private Headers fields = new Headers();

    /**
     * @param section "header" or "trailer": names the reasons ({@code header_section_too_large},
     *                {@code too_many_header_fields}, ...)
     * @param unfold  RFC 9112 §5.2: replace obsolete line folding with one space, as a user agent
     *                reading a response must; otherwise (a server reading a request) reject it
     */
    FieldSectionReader(int bytesMax, int countMax, int overLimitStatus, String section, boolean unfold) {
        this.unfold = unfold;
        this.bytesMax = bytesMax;
        this.countMax = countMax;
        this.tooLarge = new H1ParseException(overLimitStatus, section + "_section_too_large");
        this.tooMany = new H1ParseException(overLimitStatus, "too_many_" + section + "_fields");
    }

    /** @return the finished section, or null when more bytes are needed */
    Headers read(ByteBuffer in) throws H1ParseException {
        // Bounded: every iteration consumes at least one byte.
        while (lines.read(in, bytesMax - bytesUsed, false, tooLarge)) {
            bytesUsed += lines.consumed();
            if (lines.length() == 0) {
                return finish();
            }
            if (unfold && fields.size() > 0 && HttpChars.isWhitespace(lines.bytes()[0])) {
                appendToLast(FieldLine.continuation(lines.bytes(), lines.length())); // no new field
                continue;
            }
            if (fields.size() == countMax) {
                throw tooMany;
            }
            FieldLine.parse(lines.bytes(), lines.length(), fields, values); // rejects a fold before any field
        }
        return null;
    }

    private void appendToLast(String continuation) {
        if (continuation.isEmpty()) {
            return;
        }
        int last = fields.size() - 1;
        String value = fields.value(last);
        fields.replaceValue(last, value.isEmpty() ? continuation : value + ' ' + continuation);
    }

    private Headers finish() {
        Headers done = fields;
        fields = new Headers();
        bytesUsed = 0;
        return done;
    }
}
