package io.ringkv.node;

import java.util.ArrayList;
import java.util.List;

/**
 * The value of {@code If-Match} or {@code If-None-Match} (RFC 9110 §13.1.1, §13.1.2): {@code *} or
 * a list of entity tags. A request may split the list over several fields; they read as one list,
 * joined by commas.
 *
 * <p>Grammar: {@code "*" / #entity-tag}, {@code entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE},
 * {@code etagc = %x21 / %x23-7E / obs-text}; list elements are separated by commas with optional
 * spaces or tabs, and empty elements are skipped (§5.6.1.2). Anything else is malformed, and the
 * request is answered {@code 400} rather than served as if it had no condition.
 *
 * @param any  true for {@code *}
 * @param tags the tags in order
 */
record EntityTagList(boolean any, List<Tag> tags) {

    /**
     * One entity tag.
     *
     * @param opaque the quoted string, quotes included
     * @param weak   whether it came with {@code W/}
     */
    record Tag(String opaque, boolean weak) {
    }

    /**
     * @param field       the field's name, for the message
     * @param fieldValues every such field of the request, in order (at least one)
     * @throws IllegalArgumentException with the message for the 400
     */
    static EntityTagList parse(String field, List<String> fieldValues) {
        String list = String.join(",", fieldValues).strip();
        if (list.equals("*")) {
            return new EntityTagList(true, List.of());
        }
        List<Tag> tags = new ArrayList<>();
        int i = 0;
        while (i < list.length()) {
            char c = list.charAt(i);
            if (c == ',' || c == ' ' || c == '\t') {
                i++;
                continue;
            }
            boolean weak = list.startsWith("W/", i);
            int opening = weak ? i + 2 : i;
            if (opening >= list.length() || list.charAt(opening) != '"') {
                throw malformed(field, list, "an entity tag is a quoted string, optionally after W/, or the list is '*' alone");
            }
            int closing = opening + 1;
            while (closing < list.length() && isEtagc(list.charAt(closing))) {
                closing++;
            }
            if (closing >= list.length() || list.charAt(closing) != '"') {
                throw malformed(field, list, "an entity tag must end with a '\"' and hold no spaces, quotes or controls");
            }
            tags.add(new Tag(list.substring(opening, closing + 1), weak));
            i = closing + 1;
            int separator = i;
            while (separator < list.length() && (list.charAt(separator) == ' ' || list.charAt(separator) == '\t')) {
                separator++;
            }
            if (separator < list.length() && list.charAt(separator) != ',') {
                throw malformed(field, list, "entity tags are separated by commas");
            }
            i = separator;
        }
        return new EntityTagList(false, List.copyOf(tags));
    }

    /** §8.8.3.2 weak comparison: the opaque strings are equal, W/ or not. */
    boolean containsWeakly(String strongTag) {
        return tags.stream().anyMatch(tag -> tag.opaque().equals(strongTag));
    }

    /** §8.8.3.2 strong comparison: neither is weak and the opaque strings are equal. */
    boolean containsStrongly(String strongTag) {
        return tags.stream().anyMatch(tag -> !tag.weak() && tag.opaque().equals(strongTag));
    }

    /** RFC 9110 §8.8.3: {@code %x21 / %x23-7E / obs-text}. */
    private static boolean isEtagc(char c) {
        return c == 0x21 || c >= 0x23 && c <= 0x7E || c >= 0x80 && c <= 0xFF;
    }

    private static IllegalArgumentException malformed(String field, String list, String why) {
        return new IllegalArgumentException(field + " is malformed (" + why + "): " + list);
    }
}
