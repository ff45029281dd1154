package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * The field values of the previous message, by position, so that the next message with the same
 * value at the same position (a client's requests, a server's responses: most of their fields
 * repeat) reuses its String instead of building one more. Only short values are kept.
 *
 * <p>Threading: confined to the owning parser, like its {@link FieldSectionReader}.
 */
final class FieldValueCache {
    /** Fields remembered per message: the first ones, where the repeating fields of small messages are. */
    private static final int SLOTS = 16;
    /** Longer values (cookies, tokens) rarely repeat byte for byte and would hold memory. */
    private static final int VALUE_LENGTH_MAX = 64;

    private final String[] slots = new String[SLOTS];

    /** The value {@code line[from, to)} (already checked) as field number {@code index} of its section. */
    String value(int index, byte[] line, int from, int to) {
        if (index >= SLOTS || to - from > VALUE_LENGTH_MAX) {
            return new String(line, from, to - from, ISO_8859_1);
        }
        String cached = slots[index];
        if (cached != null && sameBytes(cached, line, from, to)) {
            return cached;
        }
        String value = new String(line, from, to - from, ISO_8859_1);
        slots[index] = value;
        return value;
    }

    /** Whether {@code s} is {@code line[from, to)} read as ISO-8859-1; allocates nothing. */
    static boolean sameBytes(String s, byte[] line, int from, int to) {
        if (s.length() != to - from) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != (line[from + i] & 0xFF)) {
                return false;
            }
        }
        return true;
    }
}
