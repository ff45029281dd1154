package io.ringkv.http.client.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

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

    private CompletableFuture<Exchange> start(ExchangeRequest request, Call<?> call,
            CompletableFuture<H1Connection> connection) {
        Executor executor = call.executor();
        // Cancelling the call while it waits for a connection stops the wait.
        call.result().whenComplete((response, error) -> {
            if (error != null) {
                connection.cancel(false);
            }
        });
        return connection.thenApply(acquired -> {
            H1Exchange exchange = new H1Exchange(request, acquired.route(), acquired, executor);
            call.attach(exchange);
            acquired.start(exchange);
            return exchange;
        });
    }

    @Override
    public void close() {
        pool.close();
    }
}
