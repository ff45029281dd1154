package io.ringkv.http.client.internal;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What a pool keeps per {@link Route}, kept only while something uses it: the pool of HTTP/1.1
 * connections ({@link ConnectionPool}) and the HTTP/2 connection lists ({@link H2Codec}) both
 * forget a route once it has no connection (open, opening or idle) and no waiting request, so a
 * client that talks to many hosts over its lifetime keeps state only for those it is connected
 * to.
 *
 * <p>Retiring: the pool decides under a state's lock that it is {@linkplain State#unused unused}
 * and {@linkplain #retireIfUnused retires} it there; a retired state is out of the map and is
 * never handed out again. A thread that looked a route's state up just before it was retired
 * finds it retired once it holds the lock, and looks again: the route then gets a new state. So
 * every user of a state holds its lock and sees it live, and a route never has two live states.
 *
 * <p>Threading: thread-safe. Each state has its own lock, held by the pool only for its own
 * bookkeeping (never while connecting, writing or completing futures); {@link #lockLive} and
 * {@link #lockExisting} return a state locked, and the caller unlocks it. Retiring without the
 * lock is refused ({@link IllegalStateException}).
 */
final class RouteStates<S extends RouteStates.State> {
    /** One route's state: the pool's bookkeeping, guarded by this state's lock. */
    abstract static class State {
        private final ReentrantLock lock = new ReentrantLock();
        /** Set once, under the lock; then the state is out of the map for good. */
        private boolean retired;

        final void lock() {
            lock.lock();
        }

        final void unlock() {
            lock.unlock();
        }

        /** Under the lock: nothing uses this state any more, so it may be retired. */
        abstract boolean unused();

        /** Whether the calling thread holds this state's lock. */
        final boolean heldByCurrentThread() {
            return lock.isHeldByCurrentThread();
        }

        /** Under the lock (for tests and checks): whether the state was retired. */
        final boolean retired() {
            return retired;
        }
    }

    private final Map<Route, S> states = new ConcurrentHashMap<>();
    /** Made once: a lambda that captured the factory at each call would allocate per call. */
    private final Function<Route, S> create;

    RouteStates(Supplier<S> factory) {
        this.create = route -> factory.get();
    }

    /**
     * The route's state, locked: its current one, or a new one if it has none; never a retired
     * one. The caller unlocks it.
     */
    S lockLive(Route route) {
        while (true) {
            S state = states.computeIfAbsent(route, create);
            if (lockedUnlessRetired(state)) {
                return state;
            }
        }
    }

    /** The route's state, locked, or {@code null} when it has none; never a retired one. The caller unlocks it. */
    S lockExisting(Route route) {
        while (true) {
            S state = states.get(route);
            if (state == null || lockedUnlessRetired(state)) {
                return state;
            }
        }
    }

    /** Locks {@code state}; if it was retired meanwhile, unlocks it again and answers {@code false}. */
    private static boolean lockedUnlessRetired(State state) {
        state.lock();
        if (!state.retired) {
            return true;
        }
        state.unlock();
        return false;
    }

    /**
     * Under {@code state}'s lock: retires it if it is {@linkplain State#unused unused}, so that
     * the route's next user gets a new state.
     *
     * @return whether it retired the state
     * @throws IllegalStateException if the calling thread does not hold the state's lock
     */
    boolean retireIfUnused(Route route, S state) {
        State held = state; // its private fields are not members of the type variable
        if (!held.heldByCurrentThread()) {
            throw new IllegalStateException("a route's state is retired under its lock only: " + route);
        }
        if (held.retired || !held.unused()) {
            return false;
        }
        held.retired = true;
        states.remove(route, state);
        return true;
    }

    /** Every route's current state, unlocked (for shutdown: the caller locks each). */
    Collection<S> all() {
        return states.values();
    }

    /** How many routes have a state. */
    int size() {
        return states.size();
    }
}
