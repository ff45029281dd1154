package io.ringkv.node;

import io.ringkv.http.server.Request;

/**
 * Reads the query parameters that name keys ({@code id}, {@code start}, {@code end}): their exact
 * percent-decoded bytes, at most {@link #KEY_BYTES_MAX} long. Stateless.
 */
final class KeyParameters {
    /**
     * The longest key, in bytes: what the public API accepts must replicate, and a key travels to
     * peers base64-encoded in their request line (8 KiB at most).
     */
    static final int KEY_BYTES_MAX = 4096;

    private KeyParameters() {
    }

    /**
     * The parameter's bytes; absent or empty is a client error.
     *
     * @throws IllegalArgumentException with the message for the 400
     */
    static byte[] required(Request request, String name) {
        byte[] value = request.queryParamBytes(name).orElse(new byte[0]);
        if (value.length == 0) {
            throw new IllegalArgumentException("query parameter '" + name + "' is required and must not be empty");
        }
        return checked(name, value);
    }

    /**
     * The parameter's bytes, or null when it is absent or empty.
     *
     * @throws IllegalArgumentException with the message for the 400
     */
    static byte[] optional(Request request, String name) {
        return request.queryParamBytes(name).filter(bytes -> bytes.length > 0).map(bytes -> checked(name, bytes)).orElse(null);
    }

    private static byte[] checked(String name, byte[] key) {
        if (key.length > KEY_BYTES_MAX) {
            throw new IllegalArgumentException("query parameter '" + name + "' is " + key.length + " bytes; keys are at most "
                    + KEY_BYTES_MAX + " bytes");
        }
        return key;
    }
}
