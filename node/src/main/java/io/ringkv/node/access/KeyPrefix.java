package io.ringkv.node.access;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The keys a token is limited to: those that start with these bytes. Written percent-encoded, in
 * token files and on the command line ({@code %2F} for {@code /}, {@code %FF} for the byte 0xFF;
 * other characters stand for their UTF-8 bytes, {@code +} for itself), so that any key prefix can
 * be written and none contains a space. Keys compare as unsigned bytes, as the store orders them.
 *
 * <p>Immutable.
 */
public final class KeyPrefix {
    private final byte[] bytes;

    private KeyPrefix(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * @throws IllegalArgumentException for an empty prefix or a {@code %} not followed by two hex digits
     */
    public static KeyPrefix parse(String encoded) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                int high = i + 1 < encoded.length() ? Character.digit(encoded.charAt(i + 1), 16) : -1;
                int low = i + 2 < encoded.length() ? Character.digit(encoded.charAt(i + 2), 16) : -1;
                if (high < 0 || low < 0) {
                    throw new IllegalArgumentException("malformed percent-encoding in key prefix '" + encoded
                            + "': '%' must be followed by two hex digits");
                }
                out.write(high << 4 | low);
                i += 2;
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        if (out.size() == 0) {
            throw new IllegalArgumentException("the key prefix is empty (leave it out for a token that reaches every key)");
        }
        return new KeyPrefix(out.toByteArray());
    }

    /** The prefix as {@link #parse} reads it: unreserved characters and {@code /} as they are, every other byte as {@code %XX}. */
    public String encoded() {
        return encode(bytes);
    }

    /** {@link #end()} encoded as {@link #encoded()} is, or null when there is no end. */
    public String encodedEnd() {
        byte[] end = end();
        return end == null ? null : encode(end);
    }

    private static String encode(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length * 3);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || "-._~/".indexOf(c) >= 0) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return out.toString();
    }

    /** Whether {@code key} starts with this prefix. */
    public boolean covers(byte[] key) {
        return key.length >= bytes.length && Arrays.equals(key, 0, bytes.length, bytes, 0, bytes.length);
    }

    /**
     * The first key after every key that starts with this prefix, or null when there is none (a
     * prefix of 0xFF bytes only): the prefix with its trailing 0xFF bytes dropped and its last byte
     * incremented, e.g. {@code tenant0} for {@code tenant/}.
     */
    public byte[] end() {
        int last = bytes.length - 1;
        while (last >= 0 && bytes[last] == (byte) 0xFF) {
            last--;
        }
        if (last < 0) {
            return null;
        }
        byte[] end = Arrays.copyOf(bytes, last + 1);
        end[last]++;
        return end;
    }

    /**
     * Whether the range {@code [start, end)} holds only keys with this prefix: {@code start} has
     * the prefix and {@code end} is at most {@link #end()}. A range without an end ({@code null})
     * reaches the last key, so it is covered only when this prefix has no end either.
     */
    public boolean coversRange(byte[] start, byte[] end) {
        if (!covers(start)) {
            return false;
        }
        byte[] limit = end();
        if (limit == null) {
            return true;
        }
        return end != null && Arrays.compareUnsigned(end, limit) <= 0;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KeyPrefix prefix && Arrays.equals(bytes, prefix.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return encoded();
    }
}
