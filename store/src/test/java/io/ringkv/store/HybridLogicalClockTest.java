package io.ringkv.store;

import static io.ringkv.store.HybridLogicalClock.counterOf;
import static io.ringkv.store.HybridLogicalClock.millisOf;
import static io.ringkv.store.HybridLogicalClock.timestampOf;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class HybridLogicalClockTest {

    private static final long T0 = 1_700_000_000_000L;

    private final AtomicLong wall = new AtomicLong(T0);
    private final HybridLogicalClock clock = new HybridLogicalClock(wall::get);

    @Test
    void firstTimestampIsTheWallClockWithCounterZero() {
        long timestamp = clock.now();
        assertThat(millisOf(timestamp), is(T0));
        assertThat(counterOf(timestamp), is(0));
    }

    @Test
    void callsWithinOneMillisecondAdvanceTheCounter() {
        long first = clock.now();
        long second = clock.now();
        long third = clock.now();
        assertThat(second, greaterThan(first));
        assertThat(third, greaterThan(second));
        assertThat(millisOf(third), is(T0));
        assertThat(counterOf(third), is(2));
    }

    @Test
    void aWallClockMovingForwardResetsTheCounter() {
        clock.now();
        clock.now();
        wall.set(T0 + 5);
        long timestamp = clock.now();
        assertThat(timestamp, is(timestampOf(T0 + 5, 0)));
    }

    @Test
    void aWallClockSteppingBackwardsNeverMakesTimestampsGoBackwards() {
        long beforeStep = clock.now();
        wall.set(T0 - 10_000);
        long afterStep = clock.now();
        assertThat(afterStep, greaterThan(beforeStep));
        assertThat(millisOf(afterStep), is(T0));
        assertThat(counterOf(afterStep), is(1));
    }

    @Test
    void afterTheWallClockCatchesUpItIsFollowedAgain() {
        clock.now();
        wall.set(T0 - 10);
        clock.now();
        wall.set(T0 + 1);
        assertThat(clock.now(), is(timestampOf(T0 + 1, 0)));
    }

    @Test
    void counterOverflowBorrowsTheNextMillisecond() {
        clock.observe(timestampOf(T0, HybridLogicalClock.COUNTER_MAX - 1));
        long last = clock.now();
        assertThat(last, is(timestampOf(T0, HybridLogicalClock.COUNTER_MAX)));
        long borrowed = clock.now();
        assertThat(borrowed, is(timestampOf(T0 + 1, 0)));
        assertThat(borrowed, greaterThan(last));
    }

    @Test
    void aFullMillisecondOfCallsRunsAheadOfAStuckWallClockStrictlyIncreasing() {
        long previous = clock.now();
        for (int i = 0; i < 3 * (HybridLogicalClock.COUNTER_MAX + 1); i++) {
            long next = clock.now();
            assertThat(next, greaterThan(previous));
            previous = next;
        }
        assertThat(millisOf(previous), is(T0 + 3));
    }

    @Test
    void observingANewerRemoteTimestampMakesLaterTimestampsNewer() {
        long remote = timestampOf(T0 + 60_000, 7);
        clock.observe(remote);
        long local = clock.now();
        assertThat(local, greaterThan(remote));
        assertThat(local, is(timestampOf(T0 + 60_000, 8)));
    }

    @Test
    void observingAnOlderRemoteTimestampChangesNothing() {
        wall.set(T0 + 100);
        long before = clock.now();
        clock.observe(timestampOf(T0, 3));
        assertThat(clock.lastTimestamp(), is(before));
        assertThat(clock.now(), is(timestampOf(T0 + 100, 1)));
    }

    @Test
    void observingANegativeTimestampIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> clock.observe(-1));
    }

    @Test
    void aWallClockOutOfRangeIsReported() {
        wall.set(-1);
        assertThrows(IllegalStateException.class, clock::now);
    }

    @Test
    void aClockPushedToTheLargestTimestampRefusesToWrap() {
        clock.observe(Long.MAX_VALUE);
        assertThrows(IllegalStateException.class, clock::now);
    }

    @Test
    void physicalMillisIsTheWallClockWhenNothingNewerWasSeen() {
        clock.now();
        wall.set(T0 + 40);
        assertThat(clock.physicalMillis(), is(T0 + 40));
    }

    /** A timestamp taken in from a faster peer, or issued before the wall clock stepped back, holds the time up. */
    @Test
    void physicalMillisNeverFallsBehindATimestampIssuedOrObserved() {
        clock.observe(timestampOf(T0 + 300, 2));
        assertThat(clock.physicalMillis(), is(T0 + 300));
        wall.set(T0 + 500);
        clock.now();
        wall.set(T0 + 100);
        assertThat(clock.physicalMillis(), is(T0 + 500));
    }

    @Test
    void readingPhysicalMillisDoesNotAdvanceTheClock() {
        long issued = clock.now();
        clock.physicalMillis();
        assertThat(clock.lastTimestamp(), is(issued));
    }

    @Test
    void partsAndFormattingAreReadable() {
        long timestamp = timestampOf(T0, 3);
        assertThat(HybridLogicalClock.instantOf(timestamp), is(Instant.ofEpochMilli(T0)));
        assertThat(HybridLogicalClock.format(timestamp), is(Instant.ofEpochMilli(T0) + "#3@0"));
        assertThat(HybridLogicalClock.format(timestampOf(T0, 3, 9)), is(Instant.ofEpochMilli(T0) + "#3@9"));
        assertThrows(IllegalArgumentException.class, () -> timestampOf(T0, 0, HybridLogicalClock.NODE_MAX + 1));
        assertThrows(IllegalArgumentException.class, () -> timestampOf(T0, HybridLogicalClock.COUNTER_MAX + 1));
        assertThrows(IllegalArgumentException.class, () -> timestampOf(-1, 0));
    }

    @Test
    void timestampsOrderAsLongsAcrossTheCounterBoundary() {
        assertThat(timestampOf(T0 + 1, 0), greaterThan(timestampOf(T0, HybridLogicalClock.COUNTER_MAX)));
    }

    @Test
    void timestampsIssuedAfterAnObserveOnAnotherThreadAreNewerThanTheObservedOne() throws Exception {
        int threads = 4;
        int rounds = 5_000;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                results.add(executor.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        // Remote timestamps race ahead of the stuck wall clock, from every thread.
                        long remote = timestampOf(T0 + 1 + i, id);
                        clock.observe(remote);
                        if (clock.now() <= remote) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            start.countDown();
            for (Future<Boolean> result : results) {
                assertThat(result.get(60, TimeUnit.SECONDS), is(true));
            }
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void manyThreadsNeverReceiveTheSameTimestamp() throws Exception {
        int threads = 8;
        int callsPerThread = 20_000;
        // The wall clock advances now and then and also steps back, while the threads race.
        AtomicLong ticks = new AtomicLong();
        HybridLogicalClock shared = new HybridLogicalClock(() -> T0 + (ticks.incrementAndGet() / 1000) % 7);
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(executor.submit(() -> {
                    start.await();
                    long[] stamps = new long[callsPerThread];
                    for (int i = 0; i < callsPerThread; i++) {
                        stamps[i] = shared.now();
                    }
                    return stamps;
                }));
            }
            start.countDown();
            Set<Long> all = new HashSet<>();
            for (Future<long[]> result : results) {
                long[] stamps = result.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < stamps.length; i++) {
                    assertThat("per-thread order", i == 0 || stamps[i] > stamps[i - 1], is(true));
                    all.add(stamps[i]);
                }
            }
            assertThat(all.size(), is(threads * callsPerThread));
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void twoNodesNeverIssueTheSameTimestampInOneMillisecond() throws StoreException {
        HybridLogicalClock node1 = HybridLogicalClock.forNode(wall::get, 1, ClockLease.NONE);
        HybridLogicalClock node2 = HybridLogicalClock.forNode(wall::get, 2, ClockLease.NONE);
        long first = node1.now();
        long second = node2.now();
        assertThat(HybridLogicalClock.millisOf(first), is(HybridLogicalClock.millisOf(second)));
        assertThat(first == second, is(false));
        assertThat(HybridLogicalClock.nodeOf(first), is(1));
        assertThat(HybridLogicalClock.nodeOf(second), is(2));
        node1.observe(second);
        assertThat("having seen node 2's write, node 1 stamps after it", node1.now(), greaterThan(second));
    }

    @Test
    void aForgedTimestampFarAheadIsRecognisedBeforeItIsObserved() {
        assertThat(clock.isAheadBy(Long.MAX_VALUE, 500), is(true));
        assertThat(clock.isAheadBy(timestampOf(T0 + 501, 0), 500), is(true));
        assertThat(clock.isAheadBy(timestampOf(T0 + 500, 0), 500), is(false));
        assertThat(clock.isAheadBy(timestampOf(T0 - 60_000, 0), 500), is(false));
    }

    @Test
    void aRestartedClockIssuesTimestampsAboveEverythingIssuedBeforeEvenWhenTheWallClockWentBack() throws StoreException {
        java.util.concurrent.atomic.AtomicLong stored = new java.util.concurrent.atomic.AtomicLong();
        ClockLease lease = new ClockLease() {
            @Override
            public long loadMillis() {
                return stored.get();
            }

            @Override
            public void storeMillis(long millis) {
                stored.set(millis);
            }
        };
        HybridLogicalClock before = HybridLogicalClock.forNode(wall::get, 3, lease);
        long issued = 0;
        for (int i = 0; i < 5; i++) {
            issued = before.now();
            wall.addAndGet(1_000);
        }
        assertThat("the mark stays ahead of what was issued", stored.get() > HybridLogicalClock.millisOf(issued), is(true));

        wall.addAndGet(-60_000); // the node restarts with its wall clock a minute behind
        HybridLogicalClock after = HybridLogicalClock.forNode(wall::get, 3, lease);
        assertThat(after.now(), greaterThan(issued));
    }
}
