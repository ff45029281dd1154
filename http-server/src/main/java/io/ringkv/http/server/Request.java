package io.ringkv.http.server;

import io.ringkv.http.Headers;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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
 * @param protocol the HTTP version it arrived over
 * @param peerCertificates the client's certificate chain as the TLS handshake verified it, leaf
 *                 first; empty on cleartext and when the client sent none. Read once per
 *                 connection, when its handshake ends, and shared by its requests
 * @param admissionNote what the handler's {@link HeadAdmission#verdict} left for it at this
 *                 request's head, or null
 */
public record Request(String method, String path, String query, Headers headers, byte[] body,
                      InetSocketAddress remote, Protocol protocol, List<X509Certificate> peerCertificates,
                      Object admissionNote) {

    public Request {
        peerCertificates = List.copyOf(peerCertificates);
    }

    /** A request from a peer that presented no certificate. */
    public Request(String method, String path, String query, Headers headers, byte[] body, InetSocketAddress remote,
                   Protocol protocol) {
        this(method, path, query, headers, body, remote, protocol, List.of(), null);
    }

    /** A request without a note from its head. */
    public Request(String method, String path, String query, Headers headers, byte[] body, InetSocketAddress remote,
                   Protocol protocol, List<X509Certificate> peerCertificates) {
        this(method, path, query, headers, body, remote, protocol, peerCertificates, null);
    }

    /**
     * The first value of query parameter {@code name}, percent-decoded as UTF-8
     * ({@code +} is a space, as in HTML forms). A parameter given without {@code =} has value "".
     *
     * @throws IllegalArgumentException when the encoding is malformed (the caller answers 400)
     */
    public Optional<String> queryParam(String name) {
        return rawQueryParam(name).map(raw -> URLDecoder.decode(raw, StandardCharsets.UTF_8));
    }

    /**
     * The first value of query parameter {@code name} as the exact bytes its percent-encoding
     * names ({@code +} is a space), with no character set in between: {@code %FF} and {@code %FE}
     * are two different one-byte values, and other characters stand for their UTF-8 bytes.
     *
     * @throws IllegalArgumentException for a {@code %} not followed by two hex digits (the caller answers 400)
     */
    public Optional<byte[]> queryParamBytes(String name) {
        return rawQueryParam(name).map(Request::percentDecode);
    }

    /**
     * The first parameter name (percent-decoded, as {@link #queryParam} matches names) that
     * {@code query} gives more than once, if any. Such a query is ambiguous: {@link #queryParam}
     * reads the first value, and a proxy or check in front of the server may read another (HTTP
     * parameter pollution), so a handler that reads parameters may refuse it whole. Empty
     * segments ({@code a=1&&b=2}) name nothing.
     *
     * @throws IllegalArgumentException when a name's percent-encoding is malformed (the caller answers 400)
     */
    public static Optional<String> repeatedParameter(String query) {
        if (query.indexOf('&') < 0) {
            return Optional.empty();
        }
        List<String> names = new ArrayList<>();
        for (int start = 0, end; start <= query.length(); start = end + 1) {
            end = segmentEnd(query, start);
            String raw = query.substring(start, nameEnd(query, start, end));
            if (!raw.isEmpty()) {
                names.add(raw.indexOf('%') < 0 && raw.indexOf('+') < 0 ? raw : URLDecoder.decode(raw, StandardCharsets.UTF_8));
            }
        }
        // Pairwise for the usual handful; a set past that, since a target of a few KiB may name thousands.
        if (names.size() <= 8) {
            for (int i = 1; i < names.size(); i++) {
                for (int j = 0; j < i; j++) {
                    if (names.get(i).equals(names.get(j))) {
                        return Optional.of(names.get(i));
                    }
                }
            }
            return Optional.empty();
        }
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                return Optional.of(name);
            }
        }
        return Optional.empty();
    }

    private Optional<String> rawQueryParam(String name) {
        if (query.isEmpty()) {
            return Optional.empty();
        }
        for (int start = 0, end; start <= query.length(); start = end + 1) {
            end = segmentEnd(query, start);
            int nameEnd = nameEnd(query, start, end);
            if (URLDecoder.decode(query.substring(start, nameEnd), StandardCharsets.UTF_8).equals(name)) {
                return Optional.of(nameEnd < end ? query.substring(nameEnd + 1, end) : "");
            }
        }
        return Optional.empty();
    }

    /** Where the {@code name[=value]} segment starting at {@code start} ends: the next {@code &}, or the query's end. */
    private static int segmentEnd(String query, int start) {
        int end = query.indexOf('&', start);
        return end < 0 ? query.length() : end;
    }

    /** Where the segment's name ends: its {@code =}, or the segment's end when it has none. */
    private static int nameEnd(String query, int start, int end) {
        int eq = query.indexOf('=', start);
        return eq >= 0 && eq < end ? eq : end;
    }

    private static byte[] percentDecode(String raw) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int high = i + 1 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int low = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (high < 0 || low < 0) {
                    throw new IllegalArgumentException("malformed percent-encoding at '"
                            + raw.substring(i, Math.min(raw.length(), i + 3)) + "': '%' must be followed by two hex digits");
                }
                out.write(high << 4 | low);
                i += 2;
            } else if (c == '+') {
                out.write(' ');
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }
}
