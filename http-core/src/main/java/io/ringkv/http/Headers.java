package io.ringkv.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
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
    private final List<String> names;
    private final List<String> values;

    /**
     * No fields, and none can be added (every change throws {@link UnsupportedOperationException}):
     * one shared instance where a message has no section to report, such as the trailers of a
     * response that was not chunked.
     */
    public static final Headers NONE = new Headers(List.of(), List.of());

    public Headers() {
        this(8);
    }

    public Headers(int expectedFields) {
        this(new ArrayList<>(expectedFields), new ArrayList<>(expectedFields));
    }

    private Headers(List<String> names, List<String> values) {
        this.names = names;
        this.values = values;
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
        names.add(name);
        values.add(value);
        return this;
    }

    /** Removes every field: a builder reused for the next message. */
    public Headers clear() {
        names.clear();
        values.clear();
        return this;
    }

    /** Replaces the value of the field at {@code index}, keeping its name and place. */
    public Headers replaceValue(int index, String value) {
        values.set(index, value);
        return this;
    }

    /** Replaces every field called {@code name} with one field. */
    public Headers set(String name, String value) {
        remove(name);
        return add(name, value);
    }

    public Headers remove(String name) {
        for (int i = names.size() - 1; i >= 0; i--) {
            if (names.get(i).equalsIgnoreCase(name)) {
                names.remove(i);
                values.remove(i);
            }
        }
        return this;
    }

    /** The first value of {@code name}, if present. */
    public Optional<String> first(String name) {
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(name)) {
                return Optional.of(values.get(i));
            }
        }
        return Optional.empty();
    }

    /**
     * The index of the first field called {@code name} at or after {@code from}, or -1. For the
     * codecs' per-message lookups, which must not allocate (as {@link #all} and {@link #first} do).
     */
    public int indexOf(String name, int from) {
        for (int i = from; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }

    public List<String> all(String name) {
        List<String> found = new ArrayList<>(1);
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(name)) {
                found.add(values.get(i));
            }
        }
        return found;
    }

    public boolean contains(String name) {
        return first(name).isPresent();
    }

    public int size() {
        return names.size();
    }

    public String name(int index) {
        return names.get(index);
    }

    public String value(int index) {
        return values.get(index);
    }

    public List<String> names() {
        return Collections.unmodifiableList(names);
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("{");
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                text.append(", ");
            }
            text.append(names.get(i).toLowerCase(Locale.ROOT)).append(": ").append(values.get(i));
        }
        return text.append('}').toString();
    }
}
