package io.ringkv.http.client.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Basic scheme (RFC 7617): finds a Basic challenge among WWW-Authenticate or
 * Proxy-Authenticate values and builds the credentials answering it. Pure.
 *
 * @param realm the realm the server named, "" if none
 */
record BasicChallenge(String realm) {

    /** The first Basic challenge in {@code values}, if any. Other schemes are not supported. */
    static Optional<BasicChallenge> find(List<String> values) {
        for (String value : values) {
            String trimmed = value.trim();
            if (trimmed.regionMatches(true, 0, "Basic", 0, 5)
                    && (trimmed.length() == 5 || trimmed.charAt(5) == ' ')) {
                return Optional.of(new BasicChallenge(realmOf(trimmed.substring(5))));
            }
        }
        return Optional.empty();
    }

    /** RFC 7617 §2: "Basic " + base64(user-id ":" password), UTF-8 as §2.1 allows. */
    static String credentials(String user, char[] password) {
        String pair = user + ':' + new String(password);
        return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    private static String realmOf(String params) {
        String lower = params.toLowerCase(Locale.ROOT);
        int at = lower.indexOf("realm=");
        if (at < 0) {
            return "";
        }
        String rest = params.substring(at + 6).trim();
        if (rest.startsWith("\"")) {
            int end = rest.indexOf('"', 1);
            return end < 0 ? rest.substring(1) : rest.substring(1, end);
        }
        int end = rest.indexOf(',');
        return end < 0 ? rest : rest.substring(0, end).trim();
    }
}
