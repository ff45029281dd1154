package io.ringkv.http.client;

import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.util.Objects;

/**
 * The connections of one {@link ClientStats} snapshot that go to one origin (scheme, host, port)
 * over one protocol version and, if any, through one proxy. Immutable.
 *
 * @param scheme            {@code http} or {@code https}
 * @param host              as the request URIs named it; an IPv6 literal without brackets
 * @param port              the origin's port, the scheme's default made explicit
 * @param proxy             the HTTP proxy the connections go through; {@code null} for direct ones
 * @param version           {@link HttpClient.Version#HTTP_1_1} or {@link HttpClient.Version#HTTP_2};
 *                          a connection switched by {@code Upgrade: h2c} counts as HTTP/2 from the switch on
 * @param connections       connections open now (connected and not yet closed, idle ones included)
 * @param exchangesInFlight requests on those connections whose response has not fully arrived: over
 *                          HTTP/1.1 the connections carrying one, over HTTP/2 the open streams
 *                          (pushed responses included). Requests still waiting for a connection or a
 *                          stream slot are not counted.
 */
public record RouteStats(String scheme, String host, int port, InetSocketAddress proxy, HttpClient.Version version,
                         int connections, int exchangesInFlight) {

    public RouteStats {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(version, "version");
    }

    /** {@code scheme://host:port}, the port always written (and an IPv6 literal in brackets). */
    public String origin() {
        return scheme + "://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
