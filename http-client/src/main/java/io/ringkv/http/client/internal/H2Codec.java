package io.ringkv.http.client.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Runs exchanges as HTTP/2 streams on shared connections, per {@link Route}. A request takes a
 * stream slot on a live connection that has one (within the peer's
 * SETTINGS_MAX_CONCURRENT_STREAMS); when every connection is full, it waits and one more
 * connection is opened, up to {@code connectionsMax} per route; beyond that, requests wait in
 * arrival order for a slot to free up.
 *
 * <p>A route's lists exist only while it has a live or opening connection or a waiting request
 * ({@link RouteStates}, as for {@link ConnectionPool}'s HTTP/1.1 connections): the last one to
 * go retires them.
 *
 * <p>Threading: thread-safe. Each route's lists are guarded by their own lock
 * ({@link RouteStates}), held only for list operations, never while connecting, writing or
 * completing futures.
 */
final class H2Codec implements ExchangeCodec {
    private final RouteStates<RouteConnections> routes = new RouteStates<>(RouteConnections::new);
    private final Function<Route, CompletableFuture<H2Connection>> connector;
    /** Routes this codec may open connections to itself; others only get connections by {@link #adopt}. */
    private final Predicate<Route> connects;
    private final int connectionsMax;
    private final Duration idleTimeout;
    private volatile boolean closed;

    /**
     * @param connector opens a connection whose future completes once the peer's SETTINGS arrived
     * @param connects  the routes {@code connector} may be used for (prior knowledge, ALPN); the
     *                  others (origins reached by {@code Upgrade: h2c}) only use adopted connections
     */
    H2Codec(Function<Route, CompletableFuture<H2Connection>> connector, Predicate<Route> connects,
            int connectionsMax, Duration idleTimeout) {
        this.connector = connector;
        this.connects = connects;
        this.connectionsMax = connectionsMax;
        this.idleTimeout = idleTimeout;
    }

    Duration idleTimeout() {
        return idleTimeout;
    }

    @Override
    public CompletableFuture<Exchange> start(ExchangeRequest request, Route route, Call<?> call) {
        H2Exchange exchange = new H2Exchange(request, route, this, call.executor(), call.pushes());
        call.attach(exchange);
        exchange.begin();
        return CompletableFuture.completedFuture(exchange);
    }

    /** A connection with a stream slot reserved for the caller (release it if unused). */
    CompletableFuture<H2Connection> acquire(Route route) {
        if (closed) {
            return CompletableFuture.failedFuture(new IOException("HttpClient is shut down"));
        }
        CompletableFuture<H2Connection> waiter;
        RouteConnections pool = routes.lockLive(route);
        boolean connect;
        try {
            H2Connection live = pool.reserveAny();
            if (live != null) {
                return CompletableFuture.completedFuture(live);
            }
            waiter = new CompletableFuture<>(); // only a request that waits needs one
            if (!connects.test(route) && pool.live.isEmpty()) {
                routes.retireIfUnused(route, pool);
                return CompletableFuture.failedFuture(connectionGone(route));
            }
            pool.waiters.add(waiter);
            connect = connects.test(route) && pool.claimConnect(connectionsMax);
        } finally {
            pool.unlock();
        }
        if (connect) {
            open(route, pool);
        }
        return waiter;
    }

    /** A slot freed up or a connection became ready: hand slots to waiters, open a connection if they still wait. */
    void capacityFreed(Route route) {
        RouteConnections pool = routes.lockExisting(route);
        if (pool == null) {
            return;
        }
        // Every finished stream comes here, most often with nobody waiting: no lists for them.
        List<CompletableFuture<H2Connection>> granted = List.of();
        List<H2Connection> slots = List.of();
        List<CompletableFuture<H2Connection>> stranded = List.of();
        boolean connect;
        try {
            if (!pool.waiters.isEmpty()) {
                granted = new ArrayList<>();
                slots = new ArrayList<>();
            }
            while (!pool.waiters.isEmpty()) {
                H2Connection live = pool.reserveAny();
                if (live == null) {
                    break;
                }
                granted.add(pool.waiters.poll());
                slots.add(live);
            }
            boolean mayConnect = connects.test(route);
            connect = !pool.waiters.isEmpty() && !closed && mayConnect && pool.claimConnect(connectionsMax);
            if (!mayConnect && pool.live.isEmpty() && !pool.waiters.isEmpty()) {
                // The upgraded connection is gone and none can be opened here: the requests go back
                // to the network link, which upgrades anew or sends them as HTTP/1.1.
                stranded = new ArrayList<>(pool.waiters);
                pool.waiters.clear();
            }
            routes.retireIfUnused(route, pool);
        } finally {
            pool.unlock();
        }
        stranded.forEach(waiter -> waiter.completeExceptionally(connectionGone(route)));
        for (int i = 0; i < granted.size(); i++) {
            if (!granted.get(i).complete(slots.get(i))) {
                slots.get(i).release(); // the waiter gave up (its call failed); offer the slot again
            }
        }
        if (connect) {
            open(route, pool);
        }
    }

    /** Whether the route has an HTTP/2 connection that takes streams (maybe after a wait for a slot). */
    boolean hasConnection(Route route) {
        RouteConnections pool = routes.lockExisting(route);
        if (pool == null) {
            return false;
        }
        try {
            return pool.live.stream().anyMatch(H2Connection::isOpen);
        } finally {
            pool.unlock();
        }
    }

    /** A connection opened elsewhere (switched by {@code Upgrade: h2c}) joins the route's connections. */
    void adopt(H2Connection connection) {
        RouteConnections pool = routes.lockLive(connection.route());
        try {
            pool.live.add(connection);
        } finally {
            pool.unlock();
        }
        if (closed) {
            remove(connection);
            connection.shutdown();
        }
    }

    private static UnsentRequestException connectionGone(Route route) {
        return new UnsentRequestException(new IOException("the HTTP/2 connection to " + route.authority()
                + " (reached by Upgrade: h2c) closed before the request got a stream"));
    }

    /** The connection takes no more streams (GOAWAY, closed, idle): forget it. */
    void remove(H2Connection connection) {
        RouteConnections pool = routes.lockExisting(connection.route());
        if (pool != null) {
            try {
                pool.live.remove(connection);
            } finally {
                pool.unlock();
            }
            capacityFreed(connection.route());
        }
    }

    /** How many routes the codec keeps lists for. */
    int routesHeld() {
        return routes.size();
    }

    private void open(Route route, RouteConnections pool) {
        connector.apply(route).whenComplete((connection, error) -> {
            List<CompletableFuture<H2Connection>> failed = List.of();
            pool.lock(); // counted in pool.connecting until now: not retired
            try {
                pool.connecting--;
                if (error == null && connection.isOpen()) {
                    pool.live.add(connection);
                } else if (pool.live.isEmpty() && pool.connecting == 0) {
                    failed = new ArrayList<>(pool.waiters);
                    pool.waiters.clear();
                }
            } finally {
                pool.unlock();
            }
            Throwable cause = error != null ? Failures.unwrap(error) : new IOException("HTTP/2 connection closed at once");
            failed.forEach(waiter -> waiter.completeExceptionally(cause));
            capacityFreed(route);
        });
    }

    @Override
    public void close() {
        closed = true;
        for (RouteConnections pool : routes.all()) {
            List<H2Connection> live;
            List<CompletableFuture<H2Connection>> waiting;
            pool.lock();
            try {
                live = new ArrayList<>(pool.live);
                waiting = new ArrayList<>(pool.waiters);
                pool.live.clear();
                pool.waiters.clear();
            } finally {
                pool.unlock();
            }
            waiting.forEach(waiter -> waiter.completeExceptionally(new IOException("HttpClient is shut down")));
            live.forEach(H2Connection::shutdown);
        }
    }

    /** One route's connections and the requests waiting for a stream slot. Guarded by its lock. */
    private static final class RouteConnections extends RouteStates.State {
        final List<H2Connection> live = new ArrayList<>();
        final ArrayDeque<CompletableFuture<H2Connection>> waiters = new ArrayDeque<>();
        int connecting;

        @Override
        boolean unused() {
            return live.isEmpty() && waiters.isEmpty() && connecting == 0;
        }

        H2Connection reserveAny() {
            for (int i = 0; i < live.size(); i++) { // indexed: no iterator per request
                H2Connection connection = live.get(i);
                if (connection.tryReserve()) {
                    return connection;
                }
            }
            return null;
        }

        /** Whether the caller should open one more connection (at most one connect at a time per route). */
        boolean claimConnect(int connectionsMax) {
            if (connecting == 0 && live.size() < connectionsMax) {
                connecting++;
                return true;
            }
            return false;
        }
    }
}
