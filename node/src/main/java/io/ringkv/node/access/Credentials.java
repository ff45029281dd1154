package io.ringkv.node.access;

import io.ringkv.http.Headers;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * What a request's {@code Authorization} field holds: nothing, a token, or something malformed
 * (with the reason, for the answer). The token comes as {@code Bearer TOKEN} (RFC 6750 §2.1) or
 * as the password of {@code Basic} (RFC 7617, any user name), which is how a browser sends it
 * once someone typed it into its login prompt for the dashboard. Scheme names are
 * case-insensitive (RFC 9110 §11.1).
 */
public sealed interface Credentials {

    /** No {@code Authorization} field. */
    record None() implements Credentials {
    }

    /** A token, well-formed; whether it is valid is for the {@link TokenRegistry}. */
    record Token(String token) implements Credentials {
        @Override
        public String toString() {
            return "Token[hidden]";
        }
    }

    /** An {@code Authorization} field that names no token the way this server reads them. */
    record Malformed(String reason) implements Credentials {
    }

    static Credentials of(Headers headers) {
        List<String> fields = headers.all("Authorization");
        if (fields.isEmpty()) {
            return new None();
        }
        if (fields.size() > 1) {
            return new Malformed("the request has " + fields.size() + " Authorization fields; send one");
        }
        String field = fields.getFirst().strip();
        int space = field.indexOf(' ');
        String scheme = (space < 0 ? field : field.substring(0, space)).toLowerCase(Locale.ROOT);
        String rest = space < 0 ? "" : field.substring(space + 1).strip();
        return switch (scheme) {
            case "bearer" -> bearer(rest);
            case "basic" -> basic(rest);
            default -> new Malformed("Authorization scheme '" + (space < 0 ? field : field.substring(0, space))
                    + "' is not supported: send 'Authorization: Bearer TOKEN'");
        };
    }

    private static Credentials bearer(String token) {
        if (token.isEmpty()) {
            return new Malformed("'Authorization: Bearer' without a token: send 'Authorization: Bearer TOKEN'");
        }
        if (!BearerToken.wellFormed(token)) {
            return new Malformed("the token in 'Authorization: Bearer TOKEN' is malformed: a token is one word of letters, digits and -._~+/ "
                    + "(RFC 6750 section 2.1)");
        }
        return new Token(token);
    }

    private static Credentials basic(String encoded) {
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return new Malformed("'Authorization: Basic' credentials are not base64: " + e.getMessage());
        }
        int colon = pair.indexOf(':');
        if (colon < 0) {
            return new Malformed("'Authorization: Basic' credentials are not user:password");
        }
        return bearer(pair.substring(colon + 1));
    }
}
