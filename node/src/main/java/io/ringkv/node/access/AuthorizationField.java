package io.ringkv.node.access;

import io.ringkv.http.Headers;
import io.ringkv.ops.BearerToken;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Reads a request's {@code Authorization} field. The token comes as {@code Bearer TOKEN}
 * (RFC 6750 §2.1) or as the password of {@code Basic} (RFC 7617, any user name), which is how a
 * browser sends it once someone typed it into its login prompt for the dashboard. Scheme names
 * are case-insensitive (RFC 9110 §11.1). What is malformed comes back with the reason, for the
 * answer; the reason never repeats the credential. Stateless.
 */
public final class AuthorizationField {
    /** An auth-scheme as RFC 9110 §11.1 allows (a token), short enough to be a scheme name rather than a credential. */
    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,19}");

    public static Credentials read(Headers headers) {
        List<String> fields = headers.all("Authorization");
        if (fields.isEmpty()) {
            return new Credentials.None();
        }
        if (fields.size() > 1) {
            return new Credentials.Malformed("the request has " + fields.size() + " Authorization fields; send one");
        }
        String field = fields.getFirst().strip();
        int space = field.indexOf(' ');
        String scheme = (space < 0 ? field : field.substring(0, space)).toLowerCase(Locale.ROOT);
        String rest = space < 0 ? "" : field.substring(space + 1).strip();
        return switch (scheme) {
            case "bearer" -> bearer(rest);
            case "basic" -> basic(rest);
            default -> new Credentials.Malformed(unsupported(space < 0 ? field : field.substring(0, space)));
        };
    }

    /** Names the scheme only when it looks like one: the field may be a bare token, which is not echoed. */
    private static String unsupported(String scheme) {
        return SCHEME.matcher(scheme).matches()
                ? "Authorization scheme '" + scheme + "' is not supported: send 'Authorization: Bearer TOKEN'"
                : "the Authorization field does not start with a scheme: send 'Authorization: Bearer TOKEN'";
    }

    private static Credentials bearer(String token) {
        if (token.isEmpty()) {
            return new Credentials.Malformed("'Authorization: Bearer' without a token: send 'Authorization: Bearer TOKEN'");
        }
        if (!BearerToken.wellFormed(token)) {
            return new Credentials.Malformed("the token in 'Authorization: Bearer TOKEN' is malformed: a token is one word of letters, digits and -._~+/ "
                    + "(RFC 6750 section 2.1)");
        }
        return new Credentials.Token(token);
    }

    private static Credentials basic(String encoded) {
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return new Credentials.Malformed("'Authorization: Basic' credentials are not base64: " + e.getMessage());
        }
        int colon = pair.indexOf(':');
        if (colon < 0) {
            return new Credentials.Malformed("'Authorization: Basic' credentials are not user:password");
        }
        return bearer(pair.substring(colon + 1));
    }

    private AuthorizationField() {
    }
}
