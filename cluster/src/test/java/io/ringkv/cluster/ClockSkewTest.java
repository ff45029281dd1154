package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.ringkv.store.HybridLogicalClock;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClockSkewTest {
    private final AtomicLong wall = new AtomicLong(1_000_000);
    /** This node's monotonic clock: it moves with {@link #elapse}, not with a step of the wall clock. */
    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final HybridLogicalClock clock = new HybridLogicalClock(wall::get);
    private final ClockSkew skew = new ClockSkew(clock, 500, Set.of("http://a:1", "http://b:1"), nanos::get);

    private void elapse(long millis) {
        wall.addAndGet(millis);
        nanos.addAndGet(millis * 1_000_000);
    }

    @Test
    void behindWhenMostPeersAreAheadByMoreThanTheBound() {
        skew.heard("http://a:1", wall.get() + 2_000);
        assertThat("one of two peers is not most", skew.behindBy(), is(Optional.empty()));
        skew.heard("http://b:1", wall.get() + 3_000);
        assertThat(skew.behindBy(), is(Optional.of(2_000L)));
    }

    @Test
    void timesFromSendersThatAreNotPeersAreIgnored() {
        skew.heard("ringkv-repair", wall.get() + 60_000);
        skew.heard("http://a:1", wall.get() + 2_000);
        assertThat(skew.behindBy(), is(Optional.empty()));
    }

    @Test
    void oldSamplesAndPeersWithinTheBoundDoNotCount() {
        skew.heard("http://a:1", wall.get() + 2_000);
        skew.heard("http://b:1", wall.get() + 400);
        assertThat(skew.behindBy(), is(Optional.empty()));
        skew.heard("http://b:1", wall.get() + 2_000);
        elapse(ClockSkew.FRESH_MILLIS - 1);
        assertThat("both samples still count", skew.behindBy(), is(Optional.of(2_000L)));
        elapse(2);
        assertThat("both samples are stale now", skew.behindBy(), is(Optional.empty()));
    }

    @Test
    void refusesWritesUntilAMajorityOfTheClusterAgreesWithItsClock() {
        assertThat(skew.writeRefusal().orElseThrow(), containsString("not confirmed by a majority"));
        skew.heard("http://a:1", wall.get() + 3_000);
        assertThat("a peer far ahead does not agree", skew.writeRefusal().isPresent(), is(true));
        skew.measured("http://b:1", wall.get() + 100, wall.get(), 2);
        assertThat("itself and one of two peers are a majority of three", skew.writeRefusal(), is(Optional.empty()));
        assertThat("a node without peers has nothing to wait for",
                new ClockSkew(new HybridLogicalClock(wall::get), 500, Set.of()).writeRefusal(), is(Optional.empty()));
    }

    /**
     * A request a peer sent before this node was paused (SIGSTOP) is read only when it wakes: its
     * sending time is seconds old and the peer looks behind. That is the waiting, not the peer's
     * clock: it must not undo what a measurement showed, or the woken node refuses its first write.
     */
    @Test
    void aRequestThatWaitedDoesNotMakeAMeasuredPeerDisagree() {
        ClockSkew four = new ClockSkew(clock, 500, Set.of("http://a:1", "http://b:1", "http://c:1"), nanos::get);
        four.measured("http://a:1", wall.get(), wall.get(), 2);
        four.measured("http://b:1", wall.get(), wall.get(), 2);
        assertThat("itself and two of three peers (the third not yet measured)", four.writeRefusal(), is(Optional.empty()));

        elapse(5_000); // paused
        four.heard("http://a:1", wall.get() - 5_000); // sent as the pause began, read now

        assertThat(four.writeRefusal(), is(Optional.empty()));
        assertThat(four.agreeingPeers(), is(2));
        assertThat("only a measurement says behind", four.aheadBy(), is(Optional.empty()));
    }

    @Test
    void aheadWhenMostMeasuredPeersAreBehindByMoreThanTheBound() {
        skew.measured("http://a:1", wall.get() - 3_000, wall.get(), 10);
        assertThat("the only peer measured is behind", skew.aheadBy(), is(Optional.of(2_990L)));
        assertThat(skew.writeRefusal().orElseThrow(), containsString("ahead of its peers"));
        skew.measured("http://b:1", wall.get(), wall.get(), 10);
        assertThat("one of two measured peers is not most", skew.aheadBy(), is(Optional.empty()));
    }

    @Test
    void theRoundTripWidensTheUncertaintyInsteadOfMakingAPeerLookOff() {
        // Answered 600 ms behind the middle of a 400 ms round trip: 600 - 200 is within the bound.
        skew.measured("http://a:1", wall.get() - 800, wall.get(), 400);
        skew.measured("http://b:1", wall.get() - 800, wall.get(), 400);
        assertThat(skew.aheadBy(), is(Optional.empty()));
    }

    @Test
    void measuredPeersAheadMakeThisNodeBehind() {
        skew.measured("http://a:1", wall.get() + 2_000, wall.get(), 2);
        skew.measured("http://b:1", wall.get() + 2_000, wall.get(), 2);
        assertThat(skew.behindBy(), is(Optional.of(2_000L)));
        assertThat(skew.writeRefusal().orElseThrow(), containsString("behind its peers"));
    }

    @Test
    void aPeerHeardWithinTheBoundCountsAgainstBeingAheadOfMost() {
        skew.heard("http://a:1", wall.get() - 5);
        skew.measured("http://b:1", wall.get() - 3_000, wall.get(), 2);
        assertThat("one of two known peers is behind: not most", skew.aheadBy(), is(Optional.empty()));
        assertThat(skew.writeRefusal(), is(Optional.empty()));
    }

    /**
     * The wall clock steps 3 s ahead while the node runs, after both peers were measured in
     * agreement: the node is ahead of them from the next check, before any new measurement
     * (before, the old samples said "agrees" until the next round, up to a second later).
     */
    @Test
    void aWallClockStepAheadCountsAtOnceNotFromTheNextMeasurement() {
        skew.measured("http://a:1", wall.get() + 3, wall.get(), 2);
        skew.measured("http://b:1", wall.get() - 3, wall.get(), 2);
        elapse(300);
        assertThat(skew.writeRefusal(), is(Optional.empty()));

        wall.addAndGet(3_000);

        assertThat(skew.aheadBy().orElseThrow(), is(greaterThan(2_900L)));
        assertThat(skew.writeRefusal().orElseThrow(), containsString("ahead of its peers"));
    }

    @Test
    void aWallClockStepBackCountsAtOnce() {
        skew.measured("http://a:1", wall.get(), wall.get(), 2);
        skew.heard("http://b:1", wall.get());

        wall.addAndGet(-3_000);

        assertThat(skew.behindBy().orElseThrow(), is(greaterThan(2_900L)));
        assertThat(skew.writeRefusal().orElseThrow(), containsString("behind its peers"));
    }

    @Test
    void timeThatPassesOnBothClocksIsNotAStep() {
        skew.measured("http://a:1", wall.get(), wall.get(), 2);
        skew.measured("http://b:1", wall.get(), wall.get(), 2);
        elapse(30_000);
        assertThat(skew.writeRefusal(), is(Optional.empty()));
    }

    /**
     * A stamp further ahead of the node's own wall clock than the bound is refused after stamping:
     * the clock took in such a time before its wall clock stepped back, and peers would refuse it.
     */
    @Test
    void aStampFurtherAheadOfTheWallClockThanTheBoundIsRefused() {
        skew.measured("http://a:1", wall.get(), wall.get(), 2);
        skew.measured("http://b:1", wall.get(), wall.get(), 2);
        assertThat(skew.stampRefusal(clock.now()), is(Optional.empty()));

        long stampedAhead = HybridLogicalClock.timestampOf(wall.get() + 501, 0);

        assertThat(skew.stampRefusal(stampedAhead).orElseThrow(), containsString("ahead of its wall clock"));
    }

    @Test
    void aStepBetweenTheCheckAndTheStampIsCaughtAfterStamping() {
        skew.measured("http://a:1", wall.get(), wall.get(), 2);
        skew.measured("http://b:1", wall.get(), wall.get(), 2);
        assertThat("the check before stamping", skew.writeRefusal(), is(Optional.empty()));

        wall.addAndGet(3_000);
        long stamp = clock.now();

        assertThat(skew.stampRefusal(stamp).orElseThrow(), containsString("ahead of its peers"));
    }

    /**
     * Tombstone collection reads the time from here: none while the clock is unconfirmed or off,
     * else the wall clock less the bound, the earliest a majority of the cluster may read.
     */
    @Test
    void theAgreedTimeIsTheWallClockLessTheBoundAndNoneWhileTheClockIsRefused() {
        assertThat("not confirmed yet", skew.agreedEarliestMillis(), is(OptionalLong.empty()));
        skew.measured("http://a:1", wall.get(), wall.get(), 2);
        skew.measured("http://b:1", wall.get() + 100, wall.get(), 2);
        assertThat(skew.agreedEarliestMillis(), is(OptionalLong.of(wall.get() - 500)));

        wall.addAndGet(3_000);
        assertThat("ahead of both peers after a step", skew.agreedEarliestMillis(), is(OptionalLong.empty()));
        wall.addAndGet(-6_000);
        assertThat("behind both peers after a step back", skew.agreedEarliestMillis(), is(OptionalLong.empty()));
        assertThat("a node without peers",
                new ClockSkew(new HybridLogicalClock(wall::get), 500, Set.of()).agreedEarliestMillis(),
                is(OptionalLong.of(wall.get() - 500)));
    }
}
