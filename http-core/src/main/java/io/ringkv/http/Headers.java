package io.ringkv.http;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * An ordered list of header fields, as they appear on the wire, with case-insensitive lookup.
 *
 * <p>Shared by the HTTP/1.1 and HTTP/2 codecs, the server and the client. Names keep the case
 * they were given (HTTP/2 requires lowercase on the wire; its codec lowercases). Values are
 * stored as given; codecs validate before adding.
 *
 * <p>Threading: not thread-safe while being built; treat as immutable once handed to another
 * component (a parser hands out a finished instance and never touches it again).
 */
public final class Headers {
    private static final String[] NO_FIELDS = new String[0];

    /**
     * Name and value of field {@code i} at {@code 2i} and {@code 2i + 1}: one array for a whole
     * section instead of two lists and their arrays, as a head is parsed or decoded per message.
     */
    private String[] fields;
    private int size;
    private final boolean frozen;

    /**
     * No fields, and none can be added (every change throws {@link UnsupportedOperationException}):
     * one shared instance where a message has no section to report, such as the trailers of a
     * response that was not chunked.
     */
    public static final Headers NONE = new Headers(NO_FIELDS, true);

    public Headers() {
        this(8);
    }

    public Headers(int expectedFields) {
        this(new String[2 * checkExpected(expectedFields)], false);
    }

    private static int checkExpected(int expectedFields) {
        if (expectedFields < 0) {
            throw new IllegalArgumentException("expected fields must not be negative: " + expectedFields);
        }
        return expectedFields;
    }

    private Headers(String[] fields, boolean frozen) {
        this.fields = fields;
        this.frozen = frozen;
    }

    public static Headers of(String... nameValuePairs) {
        if (nameValuePairs.length % 2 != 0) {
            throw new IllegalArgumentException("name/value pairs expected, got an odd count");
        }
        Headers headers = new Headers(nameValuePairs.length / 2);
        for (int i = 0; i < nameValuePairs.length; i += 2) {
            headers.add(nameValuePairs[i], nameValuePairs[i + 1]);
        }
        return headers;
    }

    public Headers add(String name, String value) {
        checkChangeable();
        if (2 * size == fields.length) {
            fields = Arrays.copyOf(fields, Math.max(16, 2 * fields.length));
        }
        fields[2 * size] = name;
        fields[2 * size + 1] = value;
        size++;
        return this;
    }

    /** Removes every field: a builder reused for the next message. */
    public Headers clear() {
        checkChangeable();
        Arrays.fill(fields, 0, 2 * size, null);
        size = 0;
        return this;
    }

    /** Replaces the value of the field at {@code index}, keeping its name and place. */
    public Headers replaceValue(int index, String value) {
        checkChangeable();
        fields[2 * Objects.checkIndex(index, size) + 1] = value;
        return this;
    }

    /** Replaces every field called {@code name} with one field. */
    public Headers set(String name, String value) {
        remove(name);
        return add(name, value);
    }

    public Headers remove(String name) {
        checkChangeable();
        int kept = 0;
        for (int i = 0; i < size; i++) {
            if (!fields[2 * i].equalsIgnoreCase(name)) {
                fields[2 * kept] = fields[2 * i];
                fields[2 * kept + 1] = fields[2 * i + 1];
                kept++;
            }
        }
        Arrays.fill(fields, 2 * kept, 2 * size, null);
        size = kept;
        return this;
    }

    private void checkChangeable() {
        if (frozen) {
            throw new UnsupportedOperationException("these header fields cannot change");
        }
    }

    /** The first value of {@code name}, if present. */
    public Optional<String> first(String name) {
        int index = indexOf(name, 0);
        return index < 0 ? Optional.empty() : Optional.of(fields[2 * index + 1]);
    }

    /**
     * The index of the first field called {@code name} at or after {@code from}, or -1. For the
     * codecs' per-message lookups, which must not allocate (as {@link #all} and {@link #first} do).
     */
    public int indexOf(String name, int from) {
        for (int i = Math.max(from, 0); i < size; i++) {
            if (fields[2 * i].equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    public List<String> all(String name) {
        List<String> found = new ArrayList<>(1);
        for (int i = 0; i < size; i++) {
            if (fields[2 * i].equalsIgnoreCase(name)) {
                found.add(fields[2 * i + 1]);
            }
        }
        return found;
    }

    public boolean contains(String name) {
        return indexOf(name, 0) >= 0;
    }

    public int size() {
        return size;
    }

    public String name(int index) {
        return fields[2 * Objects.checkIndex(index, size)];
    }

    public String value(int index) {
        return fields[2 * Objects.checkIndex(index, size) + 1];
    }

    /** The names in order, as an unmodifiable view that follows later changes. */
    public List<String> names() {
        return new AbstractList<>() {
            @Override
            public String get(int index) {
                return name(index);
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i < size; i++) {
            if (i > 0) {
                text.append(", ");
            }
            text.append(fields[2 * i].toLowerCase(Locale.ROOT)).append(": ").append(fields[2 * i + 1]);
        }
        return text.append('}').toString();
    }
}
