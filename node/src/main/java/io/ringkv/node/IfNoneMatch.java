package io.ringkv.node;

import java.util.List;

/**
 * An {@code If-None-Match} condition (RFC 9110 §13.1.2): {@code *} or a list of entity tags,
 * compared weakly (a {@code W/} prefix does not matter, the quoted string must be equal). Parsed
 * by {@link EntityTagList}: anything malformed is answered {@code 400}.
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
        EntityTagList list = EntityTagList.parse(FIELD, fieldValues);
        return new IfNoneMatch(list.any(), list.tags().stream().map(EntityTagList.Tag::opaque).toList());
    }

    /** Whether a current representation with this strong tag makes the condition false, i.e. the answer {@code 304}. */
    boolean matches(String entityTag) {
        return any || tags.contains(entityTag);
    }
}
