package io.ringkv.http.h1;

import io.ringkv.http.Headers;
import java.nio.ByteBuffer;

/**
 * Encodes a start line and field section: {@code start-line CRLF *( field-line CRLF ) CRLF}.
 * Stateless.
 *
 * <p>Validates what it writes so that a header value taken from user input can never inject
 * CR/LF (response splitting) or break framing: names must be tokens, values field-value bytes
 * (RFC 9110 §5.5) representable in ISO-8859-1. Violations are programming errors and throw
 * {@link IllegalArgumentException}.
 */
final class HeadEncoder {
    private static final String REQUEST_VERSION = " HTTP/1.1";

    private HeadEncoder() {
    }

    /** @param startLine already validated, without CRLF */
    static ByteBuffer encode(String startLine, Headers fields) {
        byte[] out = new byte[encodedLength(startLine.length(), fields)];
        int at = putLatin1(startLine, out, 0);
        return encodeFields(out, at, fields);
    }

    /**
     * {@code method SP target SP HTTP/1.1}, then the fields: the request line goes straight into
     * the output, not through a concatenated String first (one fewer String per request).
     *
     * @param method already validated
     * @param target already validated
     */
    static ByteBuffer encodeRequest(String method, String target, Headers fields) {
        byte[] out = new byte[encodedLength(method.length() + 1 + target.length() + REQUEST_VERSION.length(), fields)];
        int at = putLatin1(method, out, 0);
        out[at++] = ' ';
        at = putLatin1(target, out, at);
        at = putLatin1(REQUEST_VERSION, out, at);
        return encodeFields(out, at, fields);
    }

    private static ByteBuffer encodeFields(byte[] out, int startLineEnd, Headers fields) {
        int at = putCrlf(out, startLineEnd);
        for (int i = 0; i < fields.size(); i++) {
            at = putLatin1(fields.name(i), out, at);
            out[at++] = ':';
            out[at++] = ' ';
            at = putLatin1(fields.value(i), out, at);
            at = putCrlf(out, at);
        }
        putCrlf(out, at);
        return ByteBuffer.wrap(out);
    }

    private static int encodedLength(int startLineLength, Headers fields) {
        int length = startLineLength + 4;
        for (int i = 0; i < fields.size(); i++) {
            checkField(fields.name(i), fields.value(i));
            length += fields.name(i).length() + fields.value(i).length() + 4;
        }
        return length;
    }

    static void checkField(String name, String value) {
        if (!ListValues.isToken(name)) {
            throw new IllegalArgumentException("field name is not a token: " + name);
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0xFF || !HttpChars.isFieldValueByte(c)) {
                throw new IllegalArgumentException("field " + name + " has a byte not allowed in a value at " + i);
            }
        }
    }

    private static int putLatin1(String s, byte[] out, int at) {
        for (int i = 0; i < s.length(); i++) {
            out[at + i] = (byte) s.charAt(i);
        }
        return at + s.length();
    }

    private static int putCrlf(byte[] out, int at) {
        out[at] = HttpChars.CR;
        out[at + 1] = HttpChars.LF;
        return at + 2;
    }
}
