package io.ringkv.http.client.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * Runs exchanges as HTTP/1.1 on pooled connections.
 *
 * <p>Threading: thread-safe; the pool serialises connection hand-out.
 */
final class H1Codec implements ExchangeCodec {
    private final ConnectionPool pool;

    H1Codec(ConnectionPool pool) {
        this.pool = pool;
    }

    @Override
    public CompletableFuture<Exchange> start(ExchangeRequest request, Route route, Call<?> call) {
        return start(request, call, pool.acquire(route, false));
    }

    @Override
    public CompletableFuture<Exchange> startFresh(ExchangeRequest request, Route route, Call<?> call) {
        return start(request, call, pool.acquire(route, true));
    }

    /**
     * Like {@link #start} (or {@link #startFresh} when {@code fresh}) with {@code Upgrade: h2c}
     * offered. The upgrade is told when no connection could be had, so its origin is not left
     * waiting for an answer that will never come.
     */
    CompletableFuture<Exchange> startUpgrade(ExchangeRequest request, Route route, Call<?> call, boolean fresh,
            H2cUpgrade upgrade) {
        CompletableFuture<Exchange> started = start(request, call, pool.acquire(route, fresh), upgrade);
        started.whenComplete((exchange, error) -> {
            if (error != null) {
                upgrade.failed();
            }
        });
        return started;
    }

    private CompletableFuture<Exchange> start(ExchangeRequest request, Call<?> call,
            CompletableFuture<H1Connection> connection) {
        return start(request, call, connection, null);
    }

    private CompletableFuture<Exchange> start(ExchangeRequest request, Call<?> call,
            CompletableFuture<H1Connection> connection, H2cUpgrade upgrade) {
        if (connection.state() == Future.State.SUCCESS) {
            // An idle pooled connection, handed out at once: no wait to cancel, no stage to build.
            try {
                return CompletableFuture.completedFuture(begin(request, call, connection.resultNow(), upgrade));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e); // as thenApply would report it
            }
        }
        // Cancelling the call while it waits for a connection stops the wait.
        call.result().whenComplete((response, error) -> {
            if (error != null) {
                connection.cancel(false);
            }
        });
        return connection.thenApply(acquired -> begin(request, call, acquired, upgrade));
    }

    private static Exchange begin(ExchangeRequest request, Call<?> call, H1Connection acquired, H2cUpgrade upgrade) {
        H1Exchange exchange = new H1Exchange(request, acquired.route(), acquired, call.executor(), upgrade);
        call.attach(exchange);
        acquired.start(exchange);
        return exchange;
    }

    @Override
    public void close() {
        pool.close();
    }
}
