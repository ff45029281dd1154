package io.ringkv.http.server;

import io.ringkv.http.Headers;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One complete request as the handler sees it: the body has been read in full (bounded by the
 * server's body limit) before the handler runs.
 *
 * @param method  the method token as sent, e.g. {@code GET}
 * @param path    the path part of the request target, percent-encoding kept
 * @param query   the raw query string after {@code ?}, or {@code ""} when there is none
 * @param headers request header fields
 * @param body    the request body, {@code byte[0]} when there is none; owned by the handler
 * @param remote  the peer address
 */
public record Request(String method, String path, String query, Headers headers, byte[] body,
                      InetSocketAddress remote) {

    /**
     * The first value of query parameter {@code name}, percent-decoded as UTF-8
     * ({@code +} is a space, as in HTML forms). A parameter given without {@code =} has value "".
     *
     * @throws IllegalArgumentException when the encoding is malformed (the caller answers 400)
     */
    public Optional<String> queryParam(String name) {
        if (query.isEmpty()) {
            return Optional.empty();
        }
        int start = 0;
        while (start <= query.length()) {
            int end = query.indexOf('&', start);
            if (end < 0) {
                end = query.length();
            }
            int eq = query.indexOf('=', start);
            String key = (eq >= 0 && eq < end) ? query.substring(start, eq) : query.substring(start, end);
            if (URLDecoder.decode(key, StandardCharsets.UTF_8).equals(name)) {
                String raw = (eq >= 0 && eq < end) ? query.substring(eq + 1, end) : "";
                return Optional.of(URLDecoder.decode(raw, StandardCharsets.UTF_8));
            }
            start = end + 1;
        }
        return Optional.empty();
    }
}
