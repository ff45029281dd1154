package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.ringkv.http.Headers;

/**
 * Parses one field line, RFC 9112 §5: {@code field-name ":" OWS field-value OWS}. Stateless.
 *
 * <p>Strict on purpose (this faces the network): obsolete line folding, whitespace before the
 * colon, non-token name bytes and control characters in values are all rejected with 400 rather
 * than repaired. The one repair, which RFC 9112 §5.2 requires of a user agent, is made before a
 * line gets here: a response's {@link FieldSectionReader} joins folded lines to their field.
 */
final class FieldLine {
    private FieldLine() {
    }

    /**
     * Parses {@code line[0, length)} (non-empty, terminator stripped) and appends it to {@code into},
     * its value taken from {@code values} when the previous message had the same one there.
     */
    static void parse(byte[] line, int length, Headers into, FieldValueCache values) throws H1ParseException {
        if (HttpChars.isWhitespace(line[0])) {
            // RFC 9112 §5.2: a server MUST reject obs-fold with 400 or replace it; we reject.
            throw H1ParseException.badRequest("obsolete_line_folding");
        }
        int colon = nameEnd(line, length);
        String known = KnownFieldNames.match(line, colon);
        String name = known != null ? known : new String(line, 0, colon, ISO_8859_1);
        into.add(name, value(line, colon + 1, length, values, into.size()));
    }

    /**
     * RFC 9112 §5.2: a line that starts with whitespace continues the previous field's value
     * (obsolete line folding). Returns that continuation, trimmed and checked like a value.
     */
    static String continuation(byte[] line, int length) throws H1ParseException {
        return value(line, 0, length, null, 0);
    }

    private static int nameEnd(byte[] line, int length) throws H1ParseException {
        int i = 0;
        while (i < length && HttpChars.isTchar(line[i])) {
            i++;
        }
        if (i == length) {
            throw H1ParseException.badRequest("missing_colon");
        }
        if (line[i] == ':') {
            if (i == 0) {
                throw H1ParseException.badRequest("empty_field_name");
            }
            return i;
        }
        if (HttpChars.isWhitespace(line[i])) {
            // RFC 9112 §5.1: no whitespace between field name and colon; MUST reject with 400.
            throw H1ParseException.badRequest("whitespace_before_colon");
        }
        throw H1ParseException.badRequest("invalid_field_name");
    }

    /** @param values where the field number {@code index} may find its value already; {@code null} for none */
    private static String value(byte[] line, int from, int to, FieldValueCache values, int index)
            throws H1ParseException {
        int start = from;
        int end = to;
        while (start < end && HttpChars.isWhitespace(line[start])) {
            start++;
        }
        while (end > start && HttpChars.isWhitespace(line[end - 1])) {
            end--;
        }
        for (int i = start; i < end; i++) {
            // RFC 9110 §5.5: CR, LF and NUL MUST be rejected; we reject every CTL but HTAB.
            if (!HttpChars.isFieldValueByte(line[i])) {
                throw H1ParseException.badRequest("invalid_field_value");
            }
        }
        return values != null ? values.value(index, line, start, end) : new String(line, start, end - start, ISO_8859_1);
    }
}
