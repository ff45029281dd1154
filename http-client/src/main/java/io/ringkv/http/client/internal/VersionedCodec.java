package io.ringkv.http.client.internal;

import java.net.http.HttpClient;
import java.util.concurrent.CompletableFuture;

/**
 * Chooses the protocol per exchange when the request asks for HTTP/2: on {@code https://}, h2 by
 * ALPN (RFC 9113 §3.2) unless the origin already chose HTTP/1.1 by ALPN once; on {@code http://},
 * HTTP/2 with prior knowledge (RFC 9113 §3.3) when the client was built with it. HTTP/1.1
 * otherwise (an {@code Upgrade: h2c} round trip is not attempted yet).
 *
 * <p>Threading: thread-safe; the set of HTTP/1.1-only origins is concurrent and only grows.
 */
final class VersionedCodec implements ExchangeCodec {
    private final H1Codec h1;
    private final H2Codec h2;
    private final boolean priorKnowledge;
    private final java.util.Set<Route> http1Origins = java.util.concurrent.ConcurrentHashMap.newKeySet();

    VersionedCodec(H1Codec h1, H2Codec h2, boolean priorKnowledge) {
        this.h1 = h1;
        this.h2 = h2;
        this.priorKnowledge = priorKnowledge;
    }

    @Override
    public CompletableFuture<Exchange> start(ExchangeRequest request, Route route, Call<?> call) {
        return usesHttp2(request, route) ? h2.start(request, route, call) : h1.start(request, route, call);
    }

    @Override
    public CompletableFuture<Exchange> startFresh(ExchangeRequest request, Route route, Call<?> call) {
        return usesHttp2(request, route) ? h2.start(request, route, call) : h1.startFresh(request, route, call);
    }

    private boolean usesHttp2(ExchangeRequest request, Route route) {
        return request.version() == HttpClient.Version.HTTP_2
                && (route.secure() ? !http1Origins.contains(route) : priorKnowledge);
    }

    /** The origin answered an h2 offer with HTTP/1.1 by ALPN: send its requests as HTTP/1.1 from now on. */
    void http1Only(Route route) {
        http1Origins.add(route);
    }

    @Override
    public void close() {
        h2.close();
        h1.close();
    }
}
