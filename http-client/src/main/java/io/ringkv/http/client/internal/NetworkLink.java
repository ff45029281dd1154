package io.ringkv.http.client.internal;

import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;

/**
 * The last link: selects the route (direct or through the {@link ProxySelector}'s HTTP proxy),
 * starts an exchange on the codec, and hands the response head back on the client executor.
 *
 * <p>Threading: thread-safe; its one mutable field, the last route, is a cache any thread may
 * replace. The codec's futures complete on event loops; the future returned here completes on
 * the client executor, so the links above may run user code.
 */
final class NetworkLink implements Link {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(NetworkLink.class);
    /** Reruns per call of a request that was never sent, before its error is the answer. */
    static final int UNSENT_RETRIES_MAX = 3;
    private final ExchangeCodec codec;
    private final ProxySelector proxies;
    /**
     * The route of the last request: most clients talk to few origins in a row, and the same
     * route object serves the next request to that origin (its authority built once). Any thread
     * may replace it; a stale read only costs a new route.
     */
    private volatile Route lastRoute;

    /** @param proxies {@code null} for direct connections only */
    NetworkLink(ExchangeCodec codec, ProxySelector proxies) {
        this.codec = codec;
        this.proxies = proxies;
    }

    @Override
    public CompletableFuture<Interim> intercept(ExchangeRequest request, Chain chain) {
        // Each attempt completes its answer on the call's executor itself (see Attempt#run): a
        // separate hop future around it was one more future and completion on every request.
        return attempt(request, chain.call(), 0, 0);
    }

    private CompletableFuture<Interim> attempt(ExchangeRequest request, Call<?> call, int staleRetries,
            int unsentRetries) {
        InetSocketAddress proxy = ProxyChoice.of(proxies, request.uri());
        Route route = routeFor(request.uri(), proxy, tunnelAuthorization(request));
        CompletableFuture<Exchange> started = staleRetries > 0
                ? codec.startFresh(request, route, call) : codec.start(request, route, call);
        Attempt attempt = new Attempt(request, call, staleRetries, unsentRetries);
        if (started.state() == Future.State.SUCCESS) {
            attempt.accept(started.resultNow(), null); // a pooled connection took it at once: no stage
        } else {
            started.whenComplete(attempt);
        }
        return attempt.answer;
    }

    private Route routeFor(java.net.URI uri, InetSocketAddress proxy, String tunnelAuthorization) {
        Route last = lastRoute;
        if (last != null && last.matches(uri, proxy, tunnelAuthorization)) {
            return last;
        }
        Route route = Route.of(uri, proxy, tunnelAuthorization);
        lastRoute = route;
        return route;
    }

    /**
     * One attempt's way from the started exchange to its response head: the exchange is attached
     * to the call, its head becomes the {@link Interim}, and a failure of either step goes to
     * {@link #retryOrFail}. One object is the action of both steps, where a thenCompose,
     * thenApply and exceptionallyCompose chain built three futures, four completions and three
     * lambdas on every request.
     *
     * <p>The answer completes on the call's executor ({@link #run}), whichever thread brought the
     * outcome: a response head comes from an event loop, and the links above may run user code.
     *
     * <p>Threading: {@link #accept} runs once for the start (on whatever thread completed it),
     * then at most once for the head; the second run follows the first, which set {@code exchange}
     * before asking for the head (the future's completion orders the write before the read).
     * {@link #finish} runs once, after them; its writes reach {@link #run} through the executor's
     * hand-off.
     */
    private final class Attempt implements BiConsumer<Object, Throwable>, Runnable {
        final CompletableFuture<Interim> answer = new ListenedFuture<>();
        private final ExchangeRequest request;
        private final Call<?> call;
        private final int staleRetries;
        private final int unsentRetries;
        private Exchange exchange;
        private Interim outcome;
        private Throwable failure;

        Attempt(ExchangeRequest request, Call<?> call, int staleRetries, int unsentRetries) {
            this.request = request;
            this.call = call;
            this.staleRetries = staleRetries;
            this.unsentRetries = unsentRetries;
        }

        @Override
        public void accept(Object value, Throwable error) {
            if (error != null) {
                failed(error);
                return;
            }
            try {
                if (exchange == null) {
                    exchange = (Exchange) value;
                    call.attach(exchange);
                    ListenedFuture.whenDone(exchange.responseHead(), this);
                } else {
                    finish(new Interim(request, (ResponseHead) value, exchange, null), null);
                }
            } catch (RuntimeException e) {
                failed(e);
            }
        }

        private void failed(Throwable error) {
            CompletableFuture<Interim> next;
            try {
                next = retryOrFail(request, call, staleRetries, unsentRetries, Failures.unwrap(error));
            } catch (RuntimeException e) {
                finish(null, e);
                return;
            }
            // A retry's answer is on the executor already, a decided one (failedFuture) is not:
            // both go through finish, the rare extra hop of the first is not worth a case.
            next.whenComplete(this::finish);
        }

        private void finish(Interim interim, Throwable error) {
            outcome = interim;
            failure = error;
            Hops.run(call.executor(), this);
        }

        /** On the call's executor: the attempt's outcome becomes the answer. */
        @Override
        public void run() {
            if (failure != null) {
                answer.completeExceptionally(Failures.unwrap(failure));
            } else {
                answer.complete(outcome);
            }
        }
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
