package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TombstoneCollectorTest {
    private static final long DAY = Duration.ofDays(1).toMillis();

    private final InMemoryStorageEngine engine = new InMemoryStorageEngine();
    private final AtomicLong wallMillis = new AtomicLong(100 * DAY);
    /** The time the cluster agrees on ({@link ClockSkew#agreedEarliestMillis}); the wall clock unless a test says otherwise. */
    private final AtomicReference<OptionalLong> agreedMillis = new AtomicReference<>();
    private final TombstoneCollector collector = new TombstoneCollector(engine, Duration.ofDays(10), wallMillis::get,
            () -> agreedMillis.get() != null ? agreedMillis.get() : OptionalLong.of(wallMillis.get()));

    private static long at(long millis) {
        return HybridLogicalClock.timestampOf(millis, 0);
    }

    @Test
    void collectsOnlyTombstonesOlderThanTheGracePeriod() throws Exception {
        engine.apply(utf8("old tombstone"), Record.tombstone(at(89 * DAY)));
        engine.apply(utf8("young tombstone"), Record.tombstone(at(91 * DAY)));
        engine.apply(utf8("old value"), Record.value(at(1 * DAY), utf8("v")));

        assertThat(collector.sweep(), is(1));

        assertThat(engine.get(utf8("old tombstone")), is(Optional.empty()));
        assertThat(engine.get(utf8("young tombstone")), is(Optional.of(Record.tombstone(at(91 * DAY)))));
        assertThat(engine.get(utf8("old value")).isPresent(), is(true));
        assertThat(collector.collected(), is(1L));
    }

    /**
     * Each key's compare-and-set state lives as long as a tombstone: a sweep removes the states last
     * promised before the grace period (their acceptances are no longer reported anyway) and keeps
     * the younger ones, and a key whose state went takes any ballot again.
     */
    @Test
    void sweepsCompareAndSetStatesPromisedBeforeTheGracePeriod() throws Exception {
        PaxosAcceptor acceptor = new PaxosAcceptor(engine);
        collector.alsoCollect(acceptor);
        int oldKeys = 1_500; // more than one page of the purge's scan
        for (int i = 0; i < oldKeys; i++) {
            byte[] key = utf8("old " + i);
            acceptor.prepare(key, at(80 * DAY), PaxosAcceptor.NO_EPOCH);
            acceptor.accept(key, at(80 * DAY), Record.value(at(80 * DAY), utf8("v")), PaxosAcceptor.NO_EPOCH);
        }
        acceptor.prepare(utf8("young"), at(95 * DAY), PaxosAcceptor.NO_EPOCH);

        assertThat(collector.sweep(), is(0));

        assertThat(collector.alsoCollected(), is((long) oldKeys));
        assertThat(engine.paxos().get(utf8("old 7")), is(io.ringkv.store.PaxosState.EMPTY));
        assertThat("a purged key promises an older ballot again", acceptor.prepare(utf8("old 7"), at(70 * DAY), PaxosAcceptor.NO_EPOCH).granted(), is(true));
        assertThat("the young promise holds", acceptor.prepare(utf8("young"), at(94 * DAY), PaxosAcceptor.NO_EPOCH).granted(), is(false));
    }

    @Test
    void aTombstoneBecomesCollectableWhenTheClockPassesItsGrace() throws Exception {
        engine.apply(utf8("k"), Record.tombstone(at(95 * DAY)));
        assertThat(collector.sweep(), is(0));
        wallMillis.set(106 * DAY);
        assertThat(collector.sweep(), is(1));
    }

    /**
     * A node whose clock its peers refuse (far ahead, say) cannot tell a tombstone's age: it skips
     * the sweep and collects nothing until its clock is confirmed again. Before, it collected by its
     * own wall clock (issue 32, item 9).
     */
    @Test
    void collectsNothingWhileTheClockIsRefused() throws Exception {
        engine.apply(utf8("old tombstone"), Record.tombstone(at(50 * DAY)));
        agreedMillis.set(OptionalLong.empty());

        assertThat(collector.sweep(), is(0));
        assertThat(engine.get(utf8("old tombstone")).isPresent(), is(true));
        assertThat(collector.sweepsSkipped(), is(1L));
        assertThat(collector.sweepsDone(), is(0L));

        agreedMillis.set(OptionalLong.of(wallMillis.get()));
        assertThat("once the clock is confirmed again", collector.sweep(), is(1));
        assertThat(collector.sweepsDone(), is(1L));
    }

    /** The agreed time, not the node's own wall clock, says how old a tombstone is. */
    @Test
    void measuresTheGracePeriodAgainstTheAgreedTime() throws Exception {
        engine.apply(utf8("k"), Record.tombstone(at(95 * DAY)));
        wallMillis.set(106 * DAY);
        agreedMillis.set(OptionalLong.of(104 * DAY));

        assertThat(collector.sweep(), is(0));

        agreedMillis.set(OptionalLong.of(105 * DAY + 1));
        assertThat(collector.sweep(), is(1));
    }

    @Test
    void onlyATombstoneOlderThanTheGracePeriodMayBeCollectedElsewhere() {
        assertThat(collector.mayBeCollectedElsewhere(Record.tombstone(at(89 * DAY))), is(true));
        assertThat(collector.mayBeCollectedElsewhere(Record.tombstone(at(90 * DAY + 1))), is(false));
        // A value of any age must reach a replica that lacks it (a wiped node): never withheld.
        assertThat(collector.mayBeCollectedElsewhere(Record.value(at(1 * DAY), utf8("v"))), is(false));
    }

    /**
     * An expired record is collected like a tombstone, but only once the grace period has passed
     * since its expiry (not since its write): until then it must stay to shadow older values that
     * a replica, a hint or anti-entropy could still bring.
     */
    @Test
    void collectsAnExpiredRecordOnlyOnceTheGracePeriodPassedSinceItsExpiry() throws Exception {
        engine.apply(utf8("expired long ago"), Record.expiring(at(50 * DAY), utf8("v"), 89 * DAY));
        engine.apply(utf8("expired lately"), Record.expiring(at(50 * DAY), utf8("v"), 91 * DAY));
        engine.apply(utf8("not expired"), Record.expiring(at(50 * DAY), utf8("v"), 101 * DAY));

        assertThat(collector.sweep(), is(1));

        assertThat(engine.get(utf8("expired long ago")), is(Optional.empty()));
        assertThat(engine.get(utf8("expired lately")).isPresent(), is(true));
        assertThat(engine.get(utf8("not expired")).isPresent(), is(true));
        wallMillis.set(101 * DAY + 1);
        assertThat("the grace counts from the expiry, not the write", collector.sweep(), is(1));
        assertThat(engine.get(utf8("expired lately")), is(Optional.empty()));
    }

    @Test
    void anExpiredRecordIsNotCollectedWhileTheClockIsRefused() throws Exception {
        engine.apply(utf8("k"), Record.expiring(at(10 * DAY), utf8("v"), 20 * DAY));
        agreedMillis.set(OptionalLong.empty());
        assertThat(collector.sweep(), is(0));
        assertThat(engine.get(utf8("k")).isPresent(), is(true));
    }

    @Test
    void anExpiredRecordPastItsGraceMayBeCollectedElsewhereAndOneWithinItMayNot() {
        assertThat(collector.mayBeCollectedElsewhere(Record.expiring(at(50 * DAY), utf8("v"), 89 * DAY)), is(true));
        assertThat(collector.mayBeCollectedElsewhere(Record.expiring(at(50 * DAY), utf8("v"), 90 * DAY + 1)), is(false));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
