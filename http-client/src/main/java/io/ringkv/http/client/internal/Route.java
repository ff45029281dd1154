package io.ringkv.http.client.internal;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Locale;

/**
 * Where a request's bytes go: the origin (scheme, host, port) and, when a proxy was selected, the
 * proxy's address. Pool key of connections. Immutable.
 *
 * @param proxy               {@code null} for a direct connection
 * @param tunnelAuthorization the {@code Proxy-Authorization} value a CONNECT through {@code proxy}
 *                            carries, {@code null} for none (and always for routes without a tunnel).
 *                            Part of the key: a tunnel opened with some credentials serves those only
 */
public record Route(String scheme, String host, int port, InetSocketAddress proxy, String tunnelAuthorization) {

    static Route of(URI uri, InetSocketAddress proxy) {
        return of(uri, proxy, null);
    }

    /** @param tunnelAuthorization kept only when the route is an https one through a proxy (a tunnel) */
    static Route of(URI uri, InetSocketAddress proxy, String tunnelAuthorization) {
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        int port = uri.getPort() != -1 ? uri.getPort() : ("https".equals(scheme) ? 443 : 80);
        String host = uri.getHost();
        // URI keeps IPv6 literals bracketed; sockets and SNI want the bare address.
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        boolean tunnel = proxy != null && "https".equals(scheme);
        return new Route(scheme, host, port, proxy, tunnel ? tunnelAuthorization : null);
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
        boolean defaultPort = secure() ? port == 443 : port == 80;
        String name = host.indexOf(':') >= 0 ? '[' + host + ']' : host;
        return defaultPort ? name : name + ':' + port;
    }

    /** Never shows the credentials: routes end up in log lines and exception messages. */
    @Override
    public String toString() {
        return "Route[" + scheme + "://" + authority() + (proxy != null ? " via " + proxy : "")
                + (tunnelAuthorization != null ? " (proxy credentials)" : "") + "]";
    }
}
