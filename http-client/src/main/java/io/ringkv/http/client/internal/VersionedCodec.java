package io.ringkv.http.client.internal;

import java.net.http.HttpClient;
import java.util.concurrent.CompletableFuture;

/**
 * Chooses the protocol per exchange: HTTP/2 with prior knowledge (RFC 9113 §3.3) when the
 * client was built with it and the request asks for HTTP/2 on {@code http://}; HTTP/1.1
 * otherwise (an {@code Upgrade: h2c} round trip is not attempted yet). Stateless.
 */
final class VersionedCodec implements ExchangeCodec {
    private final H1Codec h1;
    private final H2Codec h2;
    private final boolean priorKnowledge;

    VersionedCodec(H1Codec h1, H2Codec h2, boolean priorKnowledge) {
        this.h1 = h1;
        this.h2 = h2;
        this.priorKnowledge = priorKnowledge;
    }

    @Override
    public CompletableFuture<Exchange> start(ExchangeRequest request, Route route, Call<?> call) {
        boolean http2 = priorKnowledge && request.version() == HttpClient.Version.HTTP_2 && !route.secure();
        return http2 ? h2.start(request, route, call) : h1.start(request, route, call);
    }

    @Override
    public void close() {
        h2.close();
        h1.close();
    }
}
