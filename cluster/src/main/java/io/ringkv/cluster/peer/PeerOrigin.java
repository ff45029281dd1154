package io.ringkv.cluster.peer;

import io.ringkv.http.hpack.HeaderField;
import java.net.URI;

/**
 * A peer's origin as a connection needs it: scheme, host, port, and the {@code :scheme} and
 * {@code :authority} fields every request to it carries, made once. Immutable.
 */
record PeerOrigin(String origin, boolean secure, String host, int port, HeaderField schemeField,
                  HeaderField authorityField) {

    /**
     * @param origin {@code http://host:port} or {@code https://host:port}, as a node's id is written
     * @throws IllegalArgumentException for anything else
     */
    static PeerOrigin parse(String origin) {
        URI uri = URI.create(origin);
        String scheme = uri.getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme) || uri.getHost() == null || uri.getPort() < 0
                || !(uri.getRawPath() == null || uri.getRawPath().isEmpty()) || uri.getRawQuery() != null) {
            throw new IllegalArgumentException("not a peer origin (scheme://host:port): " + origin);
        }
        String host = uri.getHost();
        String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return new PeerOrigin(origin, scheme.equals("https"), bare, uri.getPort(), new HeaderField(":scheme", scheme),
                new HeaderField(":authority", uri.getRawAuthority()));
    }

    /** Whether {@link #host} is an IP address literal, which needs no name lookup. */
    boolean hostIsLiteral() {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
    }

    @Override
    public String toString() {
        return origin;
    }
}
