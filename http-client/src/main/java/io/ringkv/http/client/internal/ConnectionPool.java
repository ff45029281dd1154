package io.ringkv.http.client.internal;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * HTTP/1.1 connections per {@link Route}: idle ones are reused most-recent first; at most
 * {@code connectionsPerHost} are open per route, and requests beyond that wait, first come first
 * served, for one to be released or closed. When the last connection attempt of a route fails and
 * none of its connections is left, the requests waiting for one fail with that attempt's error:
 * nothing else would ever serve them.
 *
 * <p>A route's state exists only while it has a connection (open, opening or idle) or a waiter
 * ({@link RouteStates}): the last one to go retires it.
 *
 * <p>Threading: thread-safe. Each route's state is guarded by its own lock ({@link RouteStates}),
 * held only for queue operations (never while connecting, writing or completing futures).
 */
final class ConnectionPool {
    private final RouteStates<RoutePool> routes = new RouteStates<>(RoutePool::new);
    private final int connectionsPerHost;
    private final java.time.Duration idleTimeout;
    private final Function<Route, CompletableFuture<H1Connection>> connector;
    private volatile boolean closed;

    /**
     * @param idleTimeout how long a connection may sit idle in the pool before it is closed
     * @param connector   opens a new connection to a route (completes once it is connected) */
    ConnectionPool(int connectionsPerHost, java.time.Duration idleTimeout,
            Function<Route, CompletableFuture<H1Connection>> connector) {
        this.connectionsPerHost = connectionsPerHost;
        this.idleTimeout = idleTimeout;
        this.connector = connector;
    }

    /**
     * An idle connection, a new one, or one released later; fails if connecting fails.
     *
     * @param fresh prefer a new connection over an idle one while the route may open one more
     */
    CompletableFuture<H1Connection> acquire(Route route, boolean fresh) {
        if (closed) {
            return CompletableFuture.failedFuture(new IOException("HttpClient is shut down"));
        }
        CompletableFuture<H1Connection> waiter = new CompletableFuture<>();
        RoutePool pool = routes.lockLive(route);
        H1Connection idle;
        boolean open;
        try {
            idle = fresh && pool.open < connectionsPerHost ? null : pool.takeIdle();
            open = idle == null && pool.open < connectionsPerHost;
            if (open) {
                pool.open++;
            } else if (idle == null) {
                pool.waiters.add(waiter);
            }
        } finally {
            pool.unlock();
        }
        if (idle != null) {
            return CompletableFuture.completedFuture(idle);
        }
        return open ? connect(route, pool) : waiter;
    }

    /** The connection finished an exchange and may carry another. */
    void release(H1Connection connection) {
        RoutePool pool = routes.lockExisting(connection.route()); // counted in pool.open: not retired
        CompletableFuture<H1Connection> waiter;
        try {
            waiter = pool.waiters.poll();
            if (waiter == null) {
                pool.idle.push(connection);
                connection.markIdle(); // under the lock, so a taker's markBusy comes after it
            }
        } finally {
            pool.unlock();
        }
        if (waiter != null && !waiter.complete(connection)) {
            release(connection); // the waiter gave up (cancelled); offer the connection again
        }
    }

    java.time.Duration idleTimeout() {
        return idleTimeout;
    }

    /** Loop thread: the connection stayed idle for the idle timeout; closes it unless it was taken meanwhile. */
    void expire(H1Connection connection) {
        RoutePool pool = routes.lockExisting(connection.route());
        boolean expired;
        try {
            expired = pool.idle.remove(connection);
        } finally {
            pool.unlock();
        }
        if (expired) {
            connection.connection().closeAfterFlush();
        }
    }

    /** The connection closed: its slot frees up, and a waiter (if any) gets a new connection. */
    void remove(H1Connection connection) {
        RoutePool pool = routes.lockExisting(connection.route());
        if (pool == null) {
            return;
        }
        CompletableFuture<H1Connection> waiter;
        try {
            pool.idle.remove(connection);
            pool.open--;
            waiter = closed ? null : pool.waiters.poll();
            if (waiter != null) {
                pool.open++;
            } else {
                routes.retireIfUnused(connection.route(), pool);
            }
        } finally {
            pool.unlock();
        }
        if (waiter != null) {
            connect(connection.route(), pool).whenComplete((opened, error) -> {
                if (error != null) {
                    waiter.completeExceptionally(error);
                } else if (!waiter.complete(opened)) {
                    release(opened);
                }
            });
        }
    }

    /** Closes idle connections and fails waiters; busy connections close when their exchange ends. */
    void close() {
        closed = true;
        for (RoutePool pool : routes.all()) {
            pool.lock();
            try {
                pool.idle.forEach(connection -> connection.connection().closeAfterFlush());
                pool.idle.clear();
                pool.waiters.forEach(waiter -> waiter.completeExceptionally(new IOException("HttpClient is shut down")));
                pool.waiters.clear();
            } finally {
                pool.unlock();
            }
        }
    }

    /** How many routes the pool keeps state for. */
    int routesHeld() {
        return routes.size();
    }

    private CompletableFuture<H1Connection> connect(Route route, RoutePool pool) {
        return connector.apply(route).whenComplete((connection, error) -> {
            if (error == null) {
                return;
            }
            List<CompletableFuture<H1Connection>> stranded = List.of();
            pool.lock(); // counted in pool.open until now: not retired
            try {
                pool.open--;
                if (pool.open == 0) {
                    // No connection is left to be released to the waiters, and none is opening.
                    stranded = new ArrayList<>(pool.waiters);
                    pool.waiters.clear();
                    routes.retireIfUnused(route, pool);
                }
            } finally {
                pool.unlock();
            }
            Throwable cause = Failures.unwrap(error);
            stranded.forEach(waiter -> waiter.completeExceptionally(cause));
        });
    }

    /** One route's connections. Guarded by its lock. */
    private static final class RoutePool extends RouteStates.State {
        final ArrayDeque<H1Connection> idle = new ArrayDeque<>();
        final ArrayDeque<CompletableFuture<H1Connection>> waiters = new ArrayDeque<>();
        /** Connections open or opening, idle ones included. */
        int open;

        @Override
        boolean unused() {
            return open == 0 && waiters.isEmpty();
        }

        /** The most recently used idle connection that is still open (stale ones are dropped). */
        H1Connection takeIdle() {
            for (H1Connection candidate; (candidate = idle.poll()) != null; ) {
                if (candidate.isOpen()) {
                    candidate.markBusy();
                    return candidate;
                }
            }
            return null;
        }
    }
}
