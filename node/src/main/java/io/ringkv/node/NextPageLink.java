package io.ringkv.node;

import io.ringkv.http.server.Request;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The {@code Link} field (RFC 8288) that names the next page of a paged range:
 * {@code </v0/entities?start=NEXT&...>; rel="next"}. The target is the request's own, with only
 * {@code start} moved, so every other parameter ({@code end}, {@code limit}, {@code keysOnly},
 * {@code local}, ...) carries over in its order; it is relative, resolved against the request's
 * URI, so it names the node that was asked however the client reached it.
 *
 * <p>Every parameter is re-encoded from its decoded bytes: unreserved characters (RFC 3986 §2.3)
 * stay as they are, every other byte becomes {@code %XX}. That names the same bytes as the
 * request did ({@code +}, a space to the API, is written {@code %20}; a literal plus is
 * {@code %2B}), and the field never holds a character that could end the {@code <...>}.
 * Stateless.
 */
final class NextPageLink {
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private NextPageLink() {
    }

    static String field(Request request, String startName, byte[] nextStart) {
        StringBuilder target = new StringBuilder(request.path()).append('?');
        boolean moved = false;
        boolean first = true;
        for (String parameter : request.query().split("&")) {
            if (parameter.isEmpty()) {
                continue;
            }
            int equals = parameter.indexOf('=');
            byte[] name = decode(equals < 0 ? parameter : parameter.substring(0, equals));
            byte[] value = equals < 0 ? null : decode(parameter.substring(equals + 1));
            if (!moved && new String(name, StandardCharsets.UTF_8).equals(startName)) {
                value = nextStart;
                moved = true;
            }
            target.append(first ? "" : "&").append(encode(name));
            if (value != null) {
                target.append('=').append(encode(value));
            }
            first = false;
        }
        return "<" + target + ">; rel=\"next\"";
    }

    /**
     * Percent-decoding as the server reads query parameters. The parameters the API reads were
     * well-formed or the request was refused; a malformed escape in one it ignores stays literal
     * (and is encoded as such).
     */
    private static byte[] decode(String raw) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' && i + 2 < raw.length() && Character.digit(raw.charAt(i + 1), 16) >= 0
                    && Character.digit(raw.charAt(i + 2), 16) >= 0) {
                out.write(Character.digit(raw.charAt(i + 1), 16) << 4 | Character.digit(raw.charAt(i + 2), 16));
                i += 2;
            } else if (c == '+') {
                out.write(' ');
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    private static String encode(byte[] bytes) {
        StringBuilder out = new StringBuilder(bytes.length);
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.toString();
    }
}
