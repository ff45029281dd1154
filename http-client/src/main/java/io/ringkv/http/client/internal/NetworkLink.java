package io.ringkv.http.client.internal;

import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.util.concurrent.CompletableFuture;

/**
 * The last link: selects the route (direct or through the {@link ProxySelector}'s HTTP proxy),
 * starts an exchange on the codec, and hands the response head back on the client executor.
 *
 * <p>Threading: stateless. The codec's futures complete on event loops; the future returned here
 * completes on the client executor, so the links above may run user code.
 */
final class NetworkLink implements Link {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(NetworkLink.class);
    /** Reruns per call of a request that was never sent, before its error is the answer. */
    static final int UNSENT_RETRIES_MAX = 3;
    private final ExchangeCodec codec;
    private final ProxySelector proxies;

    /** @param proxies {@code null} for direct connections only */
    NetworkLink(ExchangeCodec codec, ProxySelector proxies) {
        this.codec = codec;
        this.proxies = proxies;
    }

    @Override
    public CompletableFuture<Interim> intercept(ExchangeRequest request, Chain chain) {
        return Hops.toExecutor(attempt(request, chain.call(), 0, 0), chain.call().executor());
    }

    private CompletableFuture<Interim> attempt(ExchangeRequest request, Call<?> call, int staleRetries,
            int unsentRetries) {
        InetSocketAddress proxy = ProxyChoice.of(proxies, request.uri());
        Route route = Route.of(request.uri(), proxy, tunnelAuthorization(request));
        CompletableFuture<Exchange> started = staleRetries > 0
                ? codec.startFresh(request, route, call) : codec.start(request, route, call);
        CompletableFuture<Interim> answer = started.thenCompose(exchange -> {
            call.attach(exchange);
            return exchange.responseHead().thenApply(head -> new Interim(request, head, exchange, null));
        });
        return answer.exceptionallyCompose(error -> retryOrFail(request, call, staleRetries, unsentRetries,
                Failures.unwrap(error)));
    }

    private CompletableFuture<Interim> retryOrFail(ExchangeRequest request, Call<?> call, int staleRetries,
            int unsentRetries, Throwable error) {
        // An h2 attempt that met an HTTP/1.1-only server (ALPN) runs once more, now as HTTP/1.1.
        if (error instanceof Http1NegotiatedException) {
            return attempt(request, call, staleRetries, unsentRetries);
        }
        // Never sent (its upgraded HTTP/2 connection went away first): any request may go again.
        if (error instanceof UnsentRequestException unsent) {
            if (unsentRetries < UNSENT_RETRIES_MAX && !call.isFinished()) {
                log.debug("{} {}: retrying after {}", request.method(), request.uri(), unsent.getMessage());
                return attempt(request, call, staleRetries, unsentRetries + 1);
            }
            return CompletableFuture.failedFuture(unsent.getCause());
        }
        if (error instanceof ProxyAuthenticationRequired required) {
            // As the JDK: the proxy's 407 becomes the response (no body); the auth link may answer it.
            return CompletableFuture.completedFuture(
                    new Interim(request, required.head(), new ProxyRefusal(required.head()), null));
        }
        if (error instanceof StaleConnectionException stale) {
            // RFC 9112 §9.3.1: idempotent requests may be retried on a new connection; the pool
            // drops the closed one, so the retry gets another (idle or fresh) connection.
            if (staleRetries < StaleRetryRule.RETRIES_MAX && StaleRetryRule.allows(request) && !call.isFinished()) {
                log.debug("{} {}: retrying after {}", request.method(), request.uri(), stale.getMessage());
                return attempt(request, call, staleRetries + 1, unsentRetries);
            }
            return CompletableFuture.failedFuture(stale.getCause());
        }
        return CompletableFuture.failedFuture(error);
    }

    /**
     * The request's {@code Proxy-Authorization} (set by the application or by the auth link) goes on
     * the CONNECT, and only there, unless its scheme is disabled for tunnels
     * ({@link ProxyAuthPolicy}); the codecs never send proxy fields through a tunnel.
     */
    private static String tunnelAuthorization(ExchangeRequest request) {
        return request.fields().first("Proxy-Authorization")
                .filter(value -> ProxyAuthPolicy.SYSTEM.tunnelAllows(ProxyAuthPolicy.schemeOf(value)))
                .orElse(null);
    }
}
