package io.ringkv.http.client.internal;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The last link: selects the route (direct or through the {@link ProxySelector}'s HTTP proxy),
 * starts an exchange on the codec, and hands the response head back on the client executor.
 *
 * <p>Threading: stateless. The codec's futures complete on event loops; the future returned here
 * completes on the client executor, so the links above may run user code.
 */
final class NetworkLink implements Link {
    private final ExchangeCodec codec;
    private final ProxySelector proxies;

    /** @param proxies {@code null} for direct connections only */
    NetworkLink(ExchangeCodec codec, ProxySelector proxies) {
        this.codec = codec;
        this.proxies = proxies;
    }

    @Override
    public CompletableFuture<Interim> intercept(ExchangeRequest request, Chain chain) {
        Call<?> call = chain.call();
        Route route = Route.of(request.uri(), proxyFor(request));
        CompletableFuture<Interim> answer = codec.start(request, route, call).thenCompose(exchange -> {
            call.attach(exchange);
            return exchange.responseHead().thenApply(head -> new Interim(request, head, exchange, null));
        });
        // An h2 attempt that met an HTTP/1.1-only server (ALPN) runs once more, now as HTTP/1.1.
        answer = answer.exceptionallyCompose(error -> Failures.unwrap(error) instanceof Http1NegotiatedException
                ? intercept(request, chain) : CompletableFuture.failedFuture(error));
        return Hops.toExecutor(answer, call.executor());
    }

    /** The first HTTP proxy the selector offers for the target, or {@code null} to go direct. */
    private InetSocketAddress proxyFor(ExchangeRequest request) {
        if (proxies == null) {
            return null;
        }
        List<Proxy> candidates = proxies.select(request.uri());
        for (Proxy proxy : candidates) {
            SocketAddress address = proxy.address();
            if (proxy.type() == Proxy.Type.HTTP && address instanceof InetSocketAddress inet) {
                return inet;
            }
            if (proxy.type() == Proxy.Type.DIRECT) {
                return null;
            }
        }
        return null;
    }
}
