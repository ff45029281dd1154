package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.store.Record;
import io.ringkv.store.RocksDbStorageEngine;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replica's acceptor: the promise and acceptance rules, what a promise reports, and durability across a reopen. */
class PaxosAcceptorTest {
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void promisesOnlyHigherBallotsAndAcceptsOnlyAtOrAboveThePromise() throws Exception {
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            PaxosAcceptor acceptor = new PaxosAcceptor(engine);
            assertThat(acceptor.prepare(KEY, 100, PaxosAcceptor.NO_EPOCH).granted(), is(true));
            PaxosMessages.Promise lower = acceptor.prepare(KEY, 90, PaxosAcceptor.NO_EPOCH);
            assertThat(lower.granted(), is(false));
            assertThat("a refusal names the promise", lower.promised(), is(100L));
            assertThat(acceptor.prepare(KEY, 100, PaxosAcceptor.NO_EPOCH).granted(), is(false));
            assertThat(acceptor.accept(KEY, 90, Record.value(90, new byte[] {1}), PaxosAcceptor.NO_EPOCH).granted(), is(false));
            assertThat(acceptor.accept(KEY, 100, Record.value(100, new byte[] {2}), PaxosAcceptor.NO_EPOCH).granted(), is(true));
        }
    }

    /** A round under another epoch than the node's view, or during a change, is refused before its key's state is read or written. */
    @Test
    void aRoundUnderAnotherEpochOrDuringAChangeIsRefusedAndStoresNothing() throws Exception {
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            java.util.concurrent.atomic.AtomicReference<MembershipView> view = new java.util.concurrent.atomic.AtomicReference<>(
                    viewAt(3, false));
            PaxosAcceptor acceptor = new PaxosAcceptor(engine, timestamp -> false, view::get);

            PaxosEpochException behind = assertThrows(PaxosEpochException.class, () -> acceptor.prepare(KEY, 100, 2));
            assertThat(behind.getMessage(), containsString("started under cluster metadata epoch 2"));
            assertThat(behind.getMessage(), containsString("this replica knows epoch 3"));
            assertThrows(PaxosEpochException.class, () -> acceptor.accept(KEY, 100, Record.value(100, new byte[] {1}), 4));
            assertThat("nothing promised", acceptor.prepare(KEY, 50, 3).granted(), is(true));
            assertThat("a round from a node without metadata yet (epoch 0: a new cluster's first moments) is not checked",
                    acceptor.prepare(KEY, 55, 0).granted(), is(true));

            view.set(viewAt(4, true));
            PaxosEpochException changing = assertThrows(PaxosEpochException.class, () -> acceptor.accept(KEY, 60,
                    Record.value(60, new byte[] {2}), 4));
            assertThat(changing.getMessage(), containsString("joining or leaving"));
            assertThat("nothing accepted", acceptor.prepare(KEY, 70, PaxosAcceptor.NO_EPOCH).acceptedBallot(), is(0L));

            view.set(MembershipView.ofList(List.of(ClusterNode.parse("http://n1:1"))));
            assertThat("a node without metadata (epoch 0) checks nothing", acceptor.prepare(KEY, 80, 9).granted(), is(true));
        }
    }

    /** Two normal members at {@code epoch}, and a third joining when {@code changing}. */
    private static MembershipView viewAt(long epoch, boolean changing) {
        List<Member> members = new ArrayList<>();
        for (int i = 1; i <= (changing ? 3 : 2); i++) {
            ClusterNode node = ClusterNode.parse("http://n" + i + ":" + i);
            members.add(new Member(Member.idOf(node), node.id(), i == 3 ? MemberState.JOINING : MemberState.NORMAL, i - 1, null));
        }
        return MembershipView.of(new ClusterMetadata(epoch, 2, members));
    }

    @Test
    void aPromiseReportsTheAcceptedProposalAndWhetherTheReplicaHoldsItOrSomethingNewer() throws Exception {
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            PaxosAcceptor acceptor = new PaxosAcceptor(engine);
            engine.apply(KEY, Record.value(50, new byte[] {0}));
            acceptor.prepare(KEY, 100, PaxosAcceptor.NO_EPOCH);
            Record proposed = Record.value(100, new byte[] {7});
            acceptor.accept(KEY, 100, proposed, PaxosAcceptor.NO_EPOCH);

            PaxosMessages.Promise inProgress = acceptor.prepare(KEY, 200, PaxosAcceptor.NO_EPOCH);
            assertThat(inProgress.acceptedBallot(), is(100L));
            assertThat(inProgress.accepted(), is(proposed));
            assertThat("the current version comes without its value", inProgress.current().orElseThrow().value().length, is(0));
            assertThat(inProgress.current().orElseThrow().timestamp(), is(50L));

            assertThat(inProgress.committed(), is(false));

            engine.apply(KEY, proposed); // the commit
            PaxosMessages.Promise committed = acceptor.prepare(KEY, 300, PaxosAcceptor.NO_EPOCH);
            assertThat("the accepted ballot is reported once committed too", committed.acceptedBallot(), is(100L));
            assertThat(committed.committed(), is(true));
            assertThat("a committed proposal's value does not travel", committed.accepted(), is(nullValue()));
            assertThat(committed.current().orElseThrow().timestamp(), is(100L));
        }
    }

    /**
     * A proposal committed, then deleted, and the tombstone collected after the grace period: the key
     * is absent again, and the old proposal must not be reported (finishing it would bring the
     * deleted value back).
     */
    @Test
    void aProposalOlderThanTheGracePeriodIsNotReportedOnceItsKeyIsGone() throws Exception {
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            long graceHorizon = 1_000;
            PaxosAcceptor acceptor = new PaxosAcceptor(engine, timestamp -> timestamp < graceHorizon, null);
            acceptor.prepare(KEY, 100, PaxosAcceptor.NO_EPOCH);
            acceptor.accept(KEY, 100, Record.value(100, new byte[] {7}), PaxosAcceptor.NO_EPOCH);
            engine.apply(KEY, Record.value(100, new byte[] {7}));
            engine.apply(KEY, Record.tombstone(200));
            assertThat(engine.purge(KEY, Record.tombstone(200)), is(true));

            PaxosMessages.Promise promise = acceptor.prepare(KEY, 2_000, PaxosAcceptor.NO_EPOCH);
            assertThat(promise.current(), is(Optional.empty()));
            assertThat(promise.accepted(), is(nullValue()));
        }
    }

    @Test
    void promisesAndAcceptancesSurviveAReopen() throws Exception {
        Record proposed = Record.tombstone(100);
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            PaxosAcceptor acceptor = new PaxosAcceptor(engine);
            acceptor.prepare(KEY, 100, PaxosAcceptor.NO_EPOCH);
            acceptor.accept(KEY, 100, proposed, PaxosAcceptor.NO_EPOCH);
            acceptor.prepare(KEY, 150, PaxosAcceptor.NO_EPOCH);
        }
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            PaxosAcceptor acceptor = new PaxosAcceptor(engine);
            assertThat("the promise of 150 holds after the restart", acceptor.prepare(KEY, 120, PaxosAcceptor.NO_EPOCH).granted(), is(false));
            assertThat(acceptor.accept(KEY, 140, Record.tombstone(140), PaxosAcceptor.NO_EPOCH).granted(), is(false));
            PaxosMessages.Promise promise = acceptor.prepare(KEY, 160, PaxosAcceptor.NO_EPOCH);
            assertThat(promise.accepted(), is(proposed));
            assertThat(promise.current(), is(Optional.empty()));
        }
    }

    /** The purge on RocksDB's column family: old promises go, a young one and the data stay, across pages. */
    @Test
    void purgesStatesPromisedBeforeTheHorizonAndKeepsTheRest() throws Exception {
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(dir)) {
            PaxosAcceptor acceptor = new PaxosAcceptor(engine);
            long old = io.ringkv.store.HybridLogicalClock.timestampOf(1_000, 0);
            long young = io.ringkv.store.HybridLogicalClock.timestampOf(9_000, 0);
            for (int i = 0; i < 2_100; i++) {
                acceptor.prepare(("old" + i).getBytes(StandardCharsets.UTF_8), old, PaxosAcceptor.NO_EPOCH);
            }
            acceptor.prepare(KEY, young, PaxosAcceptor.NO_EPOCH);
            engine.apply(KEY, Record.value(young, new byte[] {1}));

            assertThat(acceptor.purgeDeadBefore(5_000), is(2_100));

            assertThat(engine.paxos().promisedFrom(new byte[0], 10).size(), is(1));
            assertThat(acceptor.prepare(KEY, young, PaxosAcceptor.NO_EPOCH).granted(), is(false));
            assertThat(engine.get(KEY).isPresent(), is(true));
            assertThat(acceptor.purgeDeadBefore(5_000), is(0));
        }
    }

    @Test
    void messagesRoundTripAndMalformedOnesAreRefused() {
        Record record = Record.expiring(5, new byte[] {1, 2, 3}, 9_000);
        PaxosMessages.Accept accept = PaxosMessages.decodeAccept(PaxosMessages.encode(new PaxosMessages.Accept(KEY, 6, record)));
        assertThat(accept.record(), is(record));
        assertThat(accept.ballot(), is(6L));
        PaxosMessages.Promise promise = new PaxosMessages.Promise(true, 6, Optional.of(Record.tombstone(4)), 5, record, false);
        PaxosMessages.Promise decoded = PaxosMessages.decodePromise(PaxosMessages.encode(promise));
        assertThat(decoded.accepted(), is(record));
        assertThat(decoded.committed(), is(false));
        PaxosMessages.Promise committed = PaxosMessages.decodePromise(PaxosMessages.encode(
                new PaxosMessages.Promise(true, 6, Optional.empty(), 5, null, true)));
        assertThat(committed.committed(), is(true));
        assertThat(committed.acceptedBallot(), is(5L));
        assertThat(committed.accepted(), is(nullValue()));
        assertThat(decoded.current(), is(Optional.of(Record.tombstone(4))));
        assertThat(PaxosMessages.decodeAccepted(PaxosMessages.encode(new PaxosMessages.Accepted(false, 9))).promised(), is(9L));

        assertThrows(IllegalArgumentException.class, () -> PaxosMessages.decodeAccept(
                PaxosMessages.encode(new PaxosMessages.Accept(KEY, 4, record))), "a record stamped above its ballot");
        assertThrows(IllegalArgumentException.class, () -> PaxosMessages.decodePrepare(new byte[] {0, 1, 'k', 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> PaxosMessages.decodePromise(new byte[] {2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> PaxosMessages.decodePromise(new PaxosMessagesBytes().promiseAbovePromised()));
    }

    /** A promise whose accepted ballot is above its promise: no acceptor answers that. */
    private static final class PaxosMessagesBytes {
        byte[] promiseAbovePromised() {
            return java.nio.ByteBuffer.allocate(1 + 8 + 1 + 1 + 8 + 1 + 8 + 1 + 8 + 4).put((byte) 1).putLong(5).put((byte) 0)
                    .put((byte) 1).putLong(6).put((byte) 0).putLong(6).put((byte) 0).putLong(0).putInt(0).array();
        }
    }
}
