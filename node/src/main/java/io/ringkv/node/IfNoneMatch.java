package io.ringkv.node;

import java.util.ArrayList;
import java.util.List;

/**
 * An {@code If-None-Match} condition (RFC 9110 §13.1.2): {@code *} or a list of entity tags,
 * compared weakly (a {@code W/} prefix does not matter, the quoted string must be equal). A
 * request may split the list over several fields; they read as one list, joined by commas.
 *
 * <p>Grammar: {@code "*" / #entity-tag}, {@code entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE},
 * {@code etagc = %x21 / %x23-7E / obs-text}; list elements are separated by commas with optional
 * spaces or tabs, and empty elements are skipped (§5.6.1.2). Anything else is malformed, and the
 * request is answered {@code 400} rather than served as if it had no condition.
 *
 * @param any   true for {@code *}
 * @param tags  the opaque tags, quotes included, {@code W/} removed
 */
record IfNoneMatch(boolean any, List<String> tags) {
    static final String FIELD = "If-None-Match";
    static final IfNoneMatch NONE = new IfNoneMatch(false, List.of());

    /**
     * @param fieldValues every {@code If-None-Match} field of the request, in order; none is no condition
     * @throws IllegalArgumentException with the message for the 400
     */
    static IfNoneMatch parse(List<String> fieldValues) {
        if (fieldValues.isEmpty()) {
            return NONE;
        }
        String list = String.join(",", fieldValues).strip();
        if (list.equals("*")) {
            return new IfNoneMatch(true, List.of());
        }
        List<String> tags = new ArrayList<>();
        int i = 0;
        while (i < list.length()) {
            char c = list.charAt(i);
            if (c == ',' || c == ' ' || c == '\t') {
                i++;
                continue;
            }
            int opening = list.startsWith("W/", i) ? i + 2 : i;
            if (opening >= list.length() || list.charAt(opening) != '"') {
                throw malformed(list, "an entity tag is a quoted string, optionally after W/, or the list is '*' alone");
            }
            int closing = opening + 1;
            while (closing < list.length() && isEtagc(list.charAt(closing))) {
                closing++;
            }
            if (closing >= list.length() || list.charAt(closing) != '"') {
                throw malformed(list, "an entity tag must end with a '\"' and hold no spaces, quotes or controls");
            }
            tags.add(list.substring(opening, closing + 1));
            i = closing + 1;
            int separator = i;
            while (separator < list.length() && (list.charAt(separator) == ' ' || list.charAt(separator) == '\t')) {
                separator++;
            }
            if (separator < list.length() && list.charAt(separator) != ',') {
                throw malformed(list, "entity tags are separated by commas");
            }
            i = separator;
        }
        return new IfNoneMatch(false, List.copyOf(tags));
    }

    /** Whether a current representation with this strong tag makes the condition false, i.e. the answer {@code 304}. */
    boolean matches(String entityTag) {
        return any || tags.contains(entityTag);
    }

    /** RFC 9110 §8.8.3: {@code %x21 / %x23-7E / obs-text}. */
    private static boolean isEtagc(char c) {
        return c == 0x21 || c >= 0x23 && c <= 0x7E || c >= 0x80 && c <= 0xFF;
    }

    private static IllegalArgumentException malformed(String list, String why) {
        return new IllegalArgumentException(FIELD + " is malformed (" + why + "): " + list);
    }
}
