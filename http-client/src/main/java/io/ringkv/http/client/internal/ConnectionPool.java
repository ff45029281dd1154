package io.ringkv.http.client.internal;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * HTTP/1.1 connections per {@link Route}: idle ones are reused most-recent first; at most
 * {@code connectionsPerHost} are open per route, and requests beyond that wait, first come first
 * served, for one to be released or closed. When the last connection attempt of a route fails and
 * none of its connections is left, the requests waiting for one fail with that attempt's error:
 * nothing else would ever serve them.
 *
 * <p>A route's state exists only while it has a connection (open, opening or idle) or a waiter:
 * the last one to go removes it from the map, so a client that talks to many hosts over its
 * lifetime keeps state only for those it is connected to.
 *
 * <p>Threading: thread-safe. Each route's state is guarded by its own monitor, held only for
 * queue operations (never while connecting, writing or completing futures). A route's state is
 * retired under its monitor; a thread that finds it retired takes the route's new one.
 */
final class ConnectionPool {
    private final Map<Route, RoutePool> routes = new ConcurrentHashMap<>();
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
        RoutePool pool;
        H1Connection idle;
        boolean open;
        while (true) {
            pool = routes.computeIfAbsent(route, key -> new RoutePool());
            synchronized (pool) {
                if (pool.retired) {
                    continue; // its last connection went meanwhile; the route's next state is a new one
                }
                idle = fresh && pool.open < connectionsPerHost ? null : pool.takeIdle();
                open = idle == null && pool.open < connectionsPerHost;
                if (open) {
                    pool.open++;
                } else if (idle == null) {
                    pool.waiters.add(waiter);
                }
                break;
            }
        }
        if (idle != null) {
            return CompletableFuture.completedFuture(idle);
        }
        return open ? connect(route, pool) : waiter;
    }

    /** The connection finished an exchange and may carry another. */
    void release(H1Connection connection) {
        RoutePool pool = routes.get(connection.route());
        CompletableFuture<H1Connection> waiter;
        synchronized (pool) {
            waiter = pool.waiters.poll();
            if (waiter == null) {
                pool.idle.push(connection);
                connection.markIdle(); // under the monitor, so a taker's markBusy comes after it
            }
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
        RoutePool pool = routes.get(connection.route());
        boolean expired;
        synchronized (pool) {
            expired = pool.idle.remove(connection);
        }
        if (expired) {
            connection.connection().closeAfterFlush();
        }
    }

    /** The connection closed: its slot frees up, and a waiter (if any) gets a new connection. */
    void remove(H1Connection connection) {
        RoutePool pool = routes.get(connection.route());
        if (pool == null) {
            return;
        }
        CompletableFuture<H1Connection> waiter;
        synchronized (pool) {
            pool.idle.remove(connection);
            pool.open--;
            waiter = closed ? null : pool.waiters.poll();
            if (waiter != null) {
                pool.open++;
            } else {
                retireIfUnused(connection.route(), pool);
            }
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
        for (RoutePool pool : routes.values()) {
            synchronized (pool) {
                pool.idle.forEach(connection -> connection.connection().closeAfterFlush());
                pool.idle.clear();
                pool.waiters.forEach(waiter -> waiter.completeExceptionally(new IOException("HttpClient is shut down")));
                pool.waiters.clear();
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
            synchronized (pool) {
                pool.open--;
                if (pool.open == 0) {
                    // No connection is left to be released to the waiters, and none is opening.
                    stranded = new ArrayList<>(pool.waiters);
                    pool.waiters.clear();
                    retireIfUnused(route, pool);
                }
            }
            Throwable cause = Failures.unwrap(error);
            stranded.forEach(waiter -> waiter.completeExceptionally(cause));
        });
    }

    /** Under the pool's monitor: forgets the route's state once nothing uses it. */
    private void retireIfUnused(Route route, RoutePool pool) {
        if (pool.open == 0 && pool.waiters.isEmpty()) {
            pool.retired = true;
            routes.remove(route, pool);
        }
    }

    /** One route's connections. Guarded by its own monitor. */
    private static final class RoutePool {
        final ArrayDeque<H1Connection> idle = new ArrayDeque<>();
        final ArrayDeque<CompletableFuture<H1Connection>> waiters = new ArrayDeque<>();
        /** Connections open or opening, idle ones included. */
        int open;
        /** Removed from the map; the route's later requests use a new state. */
        boolean retired;

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
