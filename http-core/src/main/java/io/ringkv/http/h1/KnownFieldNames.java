package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.util.Arrays;

/**
 * Field names that appear on most messages, each kept as one String constant, so that parsing a
 * head reuses the constant instead of decoding a new String (and its byte array) for every
 * occurrence. A name matches only byte for byte: the case on the wire is kept, as
 * {@link FieldLine} always did. Stateless; the table is immutable.
 */
final class KnownFieldNames {
    private static final String[] NAMES = {
        "Host", "host", "Date", "date", "Server", "server", "Connection", "connection",
        "Content-Length", "content-length", "Content-Type", "content-type",
        "User-Agent", "user-agent", "Accept", "accept", "Transfer-Encoding", "transfer-encoding",
    };
    private static final byte[][] BYTES = new byte[NAMES.length][];

    static {
        for (int i = 0; i < NAMES.length; i++) {
            BYTES[i] = NAMES[i].getBytes(ISO_8859_1);
        }
    }

    private KnownFieldNames() {
    }

    /** The constant equal to {@code line[0, length)}, or {@code null} when the name is not one of them. */
    static String match(byte[] line, int length) {
        for (int i = 0; i < BYTES.length; i++) {
            byte[] known = BYTES[i];
            if (known.length == length && Arrays.equals(known, 0, length, line, 0, length)) {
                return NAMES[i];
            }
        }
        return null;
    }
}
