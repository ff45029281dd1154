package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link RouteStates}: a route's state is handed out locked and live, retired only under its lock
 * once unused, and never handed out again after that, also while other threads race to use the
 * route. Round counts bound the race; nothing is timed.
 */
class RouteStatesTest {
    private static final Route ROUTE = Route.of(URI.create("http://a.test/"), (InetSocketAddress) null);
    private static final Route OTHER = Route.of(URI.create("http://b.test/"), (InetSocketAddress) null);

    /** A state that is used while it has users. */
    static final class Users extends RouteStates.State {
        int users;

        @Override
        boolean unused() {
            return users == 0;
        }
    }

    private final RouteStates<Users> states = new RouteStates<>(Users::new);

    @Test
    void aRouteKeepsOneStateWhileItIsUsedAndEachRouteHasItsOwn() {
        Users first = use(ROUTE);
        Users again = use(ROUTE);
        Users other = use(OTHER);
        assertThat(again, sameInstance(first));
        assertThat(other, not(sameInstance(first)));
        assertThat(states.size(), is(2));
        assertThat(first.users, is(2));
    }

    @Test
    void aStateInUseIsNotRetiredAndAnUnusedOneIsRetiredOnce() {
        Users state = use(ROUTE);
        state.lock();
        try {
            assertThat(states.retireIfUnused(ROUTE, state), is(false));
            state.users--;
            assertThat(states.retireIfUnused(ROUTE, state), is(true));
            assertThat(states.retireIfUnused(ROUTE, state), is(false));
            assertThat(state.retired(), is(true));
        } finally {
            state.unlock();
        }
        assertThat(states.size(), is(0));
        assertThat(states.lockExisting(ROUTE), nullValue());

        Users next = use(ROUTE);
        assertThat("the route's next user gets a new state", next, not(sameInstance(state)));
        assertThat(next.retired(), is(false));
    }

    @Test
    void statesAreHandedOutLockedToTheCaller() {
        Users state = states.lockLive(ROUTE);
        assertThat(state.heldByCurrentThread(), is(true));
        state.unlock();
        assertThat(state.heldByCurrentThread(), is(false));
        Users existing = states.lockExisting(ROUTE);
        assertThat(existing, sameInstance(state));
        assertThat(existing.heldByCurrentThread(), is(true));
        existing.unlock();
    }

    @Test
    void retiringWithoutTheLockIsRefused() {
        Users state = states.lockLive(ROUTE);
        state.unlock();
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> states.retireIfUnused(ROUTE, state));
        assertThat(refused.getMessage().contains("under its lock"), is(true));
        assertThat(states.size(), is(1));
    }

    /**
     * Threads take and give back a use of one route many times, and whoever gives back the last
     * use retires the state: no thread ever gets a retired state, and no use is lost with one.
     */
    @Test
    void usersRacingTheRetirementOfTheirRouteNeverGetARetiredState() throws Exception {
        int threads = 4;
        int rounds = 20_000;
        AtomicInteger retiredHandedOut = new AtomicInteger();
        AtomicInteger retirements = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                running.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        Users state = states.lockLive(ROUTE);
                        try {
                            if (state.retired()) {
                                retiredHandedOut.incrementAndGet();
                            }
                            state.users++;
                        } finally {
                            state.unlock();
                        }
                        state.lock(); // as a pool does when its connection closes: the state it counted in
                        try {
                            state.users--;
                            if (states.retireIfUnused(ROUTE, state)) {
                                retirements.incrementAndGet();
                            }
                        } finally {
                            state.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> thread : running) {
                thread.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(retiredHandedOut.get(), is(0));
        assertThat("the race retired states many times", retirements.get() > 1, is(true));
        assertThat(states.size(), is(0));
    }

    /** Takes a use of the route's state, as a pool counts a connection in. */
    private Users use(Route route) {
        Users state = states.lockLive(route);
        try {
            state.users++;
            return state;
        } finally {
            state.unlock();
        }
    }
}
