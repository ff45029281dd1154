package io.ringkv.http.client.internal;

import java.net.http.HttpClient;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Chooses the protocol per exchange when the request asks for HTTP/2: on {@code https://}, h2 by
 * ALPN (RFC 9113 §3.2) unless the origin already chose HTTP/1.1 by ALPN once; on {@code http://},
 * HTTP/2 with prior knowledge (RFC 9113 §3.3) when the client was built with it, else by
 * {@code Upgrade: h2c} (RFC 7540 §3.2), as the JDK's client does. HTTP/1.1 otherwise.
 *
 * <p>The upgrade, per cleartext origin: the first request without a body carries the offer, on a
 * newly opened connection unless the pool is at its limit (a request with a body is sent as plain
 * HTTP/1.1, because the body would have to go out in full before the switch). On 101 the connection becomes the origin's HTTP/2 connection and later
 * requests use it (or wait for one of its streams); when it is gone, the next request offers the
 * upgrade again. Any other answer means the origin stays on HTTP/1.1: no further offers while it
 * is remembered. Requests that start while an offer is in flight go as plain HTTP/1.1.
 * Requests through an HTTP proxy never offer the upgrade: it is hop-by-hop, and the proxy, not
 * the origin, would answer it.
 *
 * <p>The HTTP/1.1-only origins are remembered up to {@link #HTTP1_ORIGINS_MAX}; beyond that an
 * arbitrary one is forgotten, which costs that origin one more h2 offer, answered as before.
 *
 * <p>Threading: thread-safe; the sets of origins are concurrent.
 */
final class VersionedCodec implements ExchangeCodec, H2cUpgrade.Outcome {
    /** Bound on the HTTP/1.1-only origins remembered, so that a client talking to many hosts does not grow without end. */
    static final int HTTP1_ORIGINS_MAX = 4096;
    private final H1Codec h1;
    private final H2Codec h2;
    private final boolean priorKnowledge;
    private final String upgradeSettings;
    private final Function<Route, H2Connection> upgradedConnections;
    private final Set<Route> http1Origins = ConcurrentHashMap.newKeySet();
    /** Cleartext origins with an {@code Upgrade: h2c} offer in flight (at most one each). */
    private final Set<Route> upgrading = ConcurrentHashMap.newKeySet();

    /**
     * @param upgradeSettings     the {@code HTTP2-Settings} field value for upgrade offers
     * @param upgradedConnections makes the HTTP/2 handler a connection switches to after a 101
     */
    VersionedCodec(H1Codec h1, H2Codec h2, boolean priorKnowledge, String upgradeSettings,
            Function<Route, H2Connection> upgradedConnections) {
        this.h1 = h1;
        this.h2 = h2;
        this.priorKnowledge = priorKnowledge;
        this.upgradeSettings = upgradeSettings;
        this.upgradedConnections = upgradedConnections;
    }

    @Override
    public CompletableFuture<Exchange> start(ExchangeRequest request, Route route, Call<?> call) {
        return start(request, route, call, false);
    }

    @Override
    public CompletableFuture<Exchange> startFresh(ExchangeRequest request, Route route, Call<?> call) {
        return start(request, route, call, true);
    }

    private CompletableFuture<Exchange> start(ExchangeRequest request, Route route, Call<?> call, boolean fresh) {
        if (request.version() == HttpClient.Version.HTTP_2 && !http1Origins.contains(route)) {
            if (route.secure() || priorKnowledge || h2.hasConnection(route)) {
                return h2.start(request, route, call);
            }
            if (route.proxy() == null && request.body() == null && upgrading.add(route)) {
                H2cUpgrade upgrade = new H2cUpgrade(route, upgradeSettings, upgradedConnections, h2, this,
                        call.pushes());
                // On a new connection while the pool may open one: the upgrade is then the first
                // exchange, the case servers handle best, whatever earlier requests left behind.
                return h1.startUpgrade(request, route, call, true, upgrade);
            }
        }
        return fresh ? h1.startFresh(request, route, call) : h1.start(request, route, call);
    }

    /** The origin answered an h2 offer with HTTP/1.1 by ALPN: send its requests as HTTP/1.1 from now on. */
    void http1Only(Route route) {
        if (http1Origins.add(route) && http1Origins.size() > HTTP1_ORIGINS_MAX) {
            Iterator<Route> any = http1Origins.iterator();
            if (any.hasNext()) {
                any.next();
                any.remove();
            }
        }
    }

    /** How many origins are remembered as HTTP/1.1-only. */
    int http1OriginsHeld() {
        return http1Origins.size();
    }

    @Override
    public void upgraded(Route route) {
        upgrading.remove(route); // after the connection joined the HTTP/2 codec: later requests find it
    }

    @Override
    public void declined(Route route) {
        http1Only(route);
        upgrading.remove(route);
    }

    @Override
    public void failed(Route route) {
        upgrading.remove(route);
    }

    @Override
    public void close() {
        h2.close();
        h1.close();
    }
}
