package io.ringkv.http.h1;

import java.util.ArrayList;
import java.util.List;

/** Comma-separated list fields, RFC 9110 §5.6.1. Stateless. */
final class ListValues {
    /** Bound on list elements across all lines of one field, so a hostile list cannot cost much. */
    static final int ELEMENTS_MAX = 64;

    private ListValues() {
    }

    /**
     * Splits every value on commas, trims optional whitespace, and drops empty elements (which
     * §5.6.1 tells recipients to ignore).
     */
    static List<String> elements(List<String> fieldValues, String tooManyReason) throws H1ParseException {
        List<String> elements = new ArrayList<>(fieldValues.size());
        for (String value : fieldValues) {
            for (String element : value.split(",", -1)) {
                String trimmed = element.strip();
                if (trimmed.isEmpty()) {
                    continue;
                }
                if (elements.size() == ELEMENTS_MAX) {
                    throw H1ParseException.badRequest(tooManyReason);
                }
                elements.add(trimmed);
            }
        }
        return elements;
    }

    /** Whether any element equals {@code token}, ignoring case (Connection, Expect). */
    static boolean containsToken(List<String> fieldValues, String token) {
        for (String value : fieldValues) {
            for (String element : value.split(",", -1)) {
                if (element.strip().equalsIgnoreCase(token)) {
                    return true;
                }
            }
        }
        return false;
    }

    static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > 0xFF || !HttpChars.isTchar(c)) {
                return false;
            }
        }
        return true;
    }
}
