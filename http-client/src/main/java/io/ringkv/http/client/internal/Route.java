package io.ringkv.http.client.internal;

import io.ringkv.http.hpack.HeaderField;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * Where a request's bytes go: the origin (scheme, host, port) and, when a proxy was selected, the
 * proxy's address. Pool key of connections (equality over those five parts). Immutable.
 *
 * <p>A class rather than a record for derived fields: the authority (the Host value, and the
 * HTTP/2 field that carries it), built once here instead of on every request that goes this way.
 */
public final class Route {
    private final String scheme;
    private final String host;
    private final int port;
    private final InetSocketAddress proxy;
    private final String tunnelAuthorization;
    private final String authority;
    /** HTTP/2's {@code :authority} field of every request this way (a HeaderField is immutable). */
    private final HeaderField authorityField;
    /** The pool looks routes up on every request: computed once, and without Objects.hash's array. */
    private final int hash;

    /**
     * @param proxy               {@code null} for a direct connection
     * @param tunnelAuthorization the {@code Proxy-Authorization} value a CONNECT through {@code proxy}
     *                            carries, {@code null} for none (and always for routes without a tunnel).
     *                            Part of the key: a tunnel opened with some credentials serves those only
     */
    Route(String scheme, String host, int port, InetSocketAddress proxy, String tunnelAuthorization) {
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.proxy = proxy;
        this.tunnelAuthorization = tunnelAuthorization;
        // RFC 9110 §7.2: the port only when it is not the scheme's default.
        String name = host.indexOf(':') >= 0 ? '[' + host + ']' : host;
        this.authority = port == defaultPort(scheme) ? name : name + ':' + port;
        this.authorityField = new HeaderField(":authority", authority);
        this.hash = ((scheme.hashCode() * 31 + host.hashCode()) * 31 + port) * 31
                + Objects.hashCode(proxy) * 31 + Objects.hashCode(tunnelAuthorization);
    }

    static Route of(URI uri, InetSocketAddress proxy) {
        return of(uri, proxy, null);
    }

    /** @param tunnelAuthorization kept only when the route is an https one through a proxy (a tunnel) */
    static Route of(URI uri, InetSocketAddress proxy, String tunnelAuthorization) {
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        int port = portOf(uri, scheme);
        String host = uri.getHost();
        // URI keeps IPv6 literals bracketed; sockets and SNI want the bare address.
        if (isBracketed(host)) {
            host = host.substring(1, host.length() - 1);
        }
        boolean tunnel = proxy != null && "https".equals(scheme);
        return new Route(scheme, host, port, proxy, tunnel ? tunnelAuthorization : null);
    }

    /**
     * Whether {@link #of}{@code (uri, proxy, tunnelAuthorization)} would return a route equal to
     * this one; allocates nothing, so a caller may keep a route and test it on every request.
     */
    boolean matches(URI uri, InetSocketAddress proxy, String tunnelAuthorization) {
        String uriScheme = uri.getScheme();
        String uriHost = uri.getHost();
        if (!scheme.equalsIgnoreCase(uriScheme) || uriHost == null || port != portOf(uri, scheme)
                || !Objects.equals(this.proxy, proxy)) {
            return false;
        }
        boolean hostMatches = isBracketed(uriHost)
                ? uriHost.length() == host.length() + 2 && uriHost.regionMatches(1, host, 0, host.length())
                : uriHost.equals(host);
        boolean tunnel = proxy != null && "https".equals(scheme);
        return hostMatches && Objects.equals(this.tunnelAuthorization, tunnel ? tunnelAuthorization : null);
    }

    private static int portOf(URI uri, String lowerScheme) {
        return uri.getPort() != -1 ? uri.getPort() : defaultPort(lowerScheme);
    }

    private static int defaultPort(String lowerScheme) {
        return "https".equals(lowerScheme) ? 443 : 80;
    }

    private static boolean isBracketed(String host) {
        return host.startsWith("[") && host.endsWith("]");
    }

    public String scheme() {
        return scheme;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** {@code null} for a direct connection. */
    public InetSocketAddress proxy() {
        return proxy;
    }

    /** The CONNECT's {@code Proxy-Authorization}, {@code null} for none (see the constructor). */
    public String tunnelAuthorization() {
        return tunnelAuthorization;
    }

    /** Whether requests on this route go to a proxy that forwards them (cleartext, absolute-form). */
    public boolean forwardedByProxy() {
        return proxy != null && !secure();
    }

    public boolean secure() {
        return "https".equals(scheme);
    }

    /** The address a socket connects to: the proxy's if any, else the origin's (resolved at connect). */
    public InetSocketAddress connectAddress() {
        return proxy != null ? proxy : InetSocketAddress.createUnresolved(host, port);
    }

    /** The value of the Host field, RFC 9110 §7.2: the port only when it is not the scheme's default. */
    public String authority() {
        return authority;
    }

    /** {@link #authority} as HTTP/2's {@code :authority} pseudo-header field (RFC 9113 §8.3.1). */
    HeaderField authorityField() {
        return authorityField;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Route other && port == other.port && scheme.equals(other.scheme)
                && host.equals(other.host) && Objects.equals(proxy, other.proxy)
                && Objects.equals(tunnelAuthorization, other.tunnelAuthorization);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Never shows the credentials: routes end up in log lines and exception messages. */
    @Override
    public String toString() {
        return "Route[" + scheme + "://" + authority + (proxy != null ? " via " + proxy : "")
                + (tunnelAuthorization != null ? " (proxy credentials)" : "") + "]";
    }
}
