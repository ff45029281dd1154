package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Compare-and-set proposers against real acceptors and replicas (in-memory engines, one per
 * node), with faults from decorators: a node one proposer cannot reach, a replica whose writes
 * wait at a gate the test opens. Two proposers race on one key with the same expected version.
 */
class CompareAndSetTest {
    private static final long WAIT_SECONDS = 10;
    private static final byte[] KEY = "contended".getBytes(StandardCharsets.UTF_8);
    private static final long OLD_TIMESTAMP = 10;

    private final List<String> urls = List.of("http://n1:1", "http://n2:2", "http://n3:3");
    private final ClusterNodes topology = ClusterNodes.of(urls, urls.get(0));
    private final RendezvousPlacement placement = new RendezvousPlacement(topology);
    private final Map<ClusterNode, StorageEngine> engines = new HashMap<>();
    private final Map<ClusterNode, PaxosAcceptor> acceptors = new HashMap<>();
    private final ExecutorService executorA = Executors.newSingleThreadExecutor();
    private final ExecutorService executorB = Executors.newSingleThreadExecutor();
    /** The condition both writers send: the key still holds the old version. */
    private final CasCondition oldVersion = live -> live.isPresent() && live.get().timestamp() == OLD_TIMESTAMP;

    CompareAndSetTest() throws Exception {
        for (ClusterNode node : topology.all()) {
            StorageEngine engine = new InMemoryStorageEngine();
            engine.apply(KEY, Record.value(OLD_TIMESTAMP, utf8("old")));
            engines.put(node, engine);
            acceptors.put(node, new PaxosAcceptor(engine));
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        executorA.shutdownNow();
        executorB.shutdownNow();
        assertThat(executorA.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
        assertThat(executorB.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    /**
     * Writer A's proposal is accepted by the key's first replica R only: between its accept to R and
     * to S, writer B (which cannot reach R) wins at S and T and commits, its commit to T held at a
     * gate. A retries with a quorum of R (which still reports A's proposal, its own copy being old)
     * and S (which holds B's newer record). A must not take its superseded proposal for a success:
     * before the fix it finished it, its commit reached R and T (T still without B's), and both
     * writers were answered 201 for the same expected version.
     */
    @Test
    void aSupersededProposalReportedByALaggingReplicaIsNotTakenForASuccess() throws Exception {
        List<ClusterNode> order = placement.order(KEY);
        ClusterNode r = order.get(0);
        ClusterNode s = order.get(1);
        ClusterNode t = order.get(2);
        HybridLogicalClock clockA = new HybridLogicalClock(() -> 1_000L);
        HybridLogicalClock clockB = new HybridLogicalClock(() -> 2_000L);

        GatedReplica gatedT = new GatedReplica(new LocalReplica(t, engines.get(t)));
        Coordinator coordinatorB = new Coordinator(topology, Map.of(r, new FailingReplica(r), s, local(s), t, gatedT), clockB,
                new CoordinatorSettings(Duration.ofSeconds(WAIT_SECONDS), executorB));
        CompareAndSet writerB = new CompareAndSet(placement, () -> 3, Map.of(r, unreachable(r), s, PaxosPeer.local(s, acceptors.get(s)),
                t, PaxosPeer.local(t, acceptors.get(t))), coordinatorB, clockB, null, executorB);

        List<CompletableFuture<CasOutcome>> outcomeB = new java.util.concurrent.CopyOnWriteArrayList<>();
        PaxosPeer sRacedByB = new PaxosPeer() {
            private final PaxosPeer delegate = PaxosPeer.local(s, acceptors.get(s));

            @Override
            public ClusterNode node() {
                return s;
            }

            @Override
            public CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot, long roundEpoch) {
                return delegate.prepare(key, ballot, roundEpoch);
            }

            @Override
            public CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record, long roundEpoch) {
                if (outcomeB.isEmpty()) {
                    outcomeB.add(writerB.write(KEY, oldVersion, timestamp -> Record.value(timestamp, utf8("B")),
                            new ReplicationParams(2, 3)));
                    awaitStoredOn(s, "B");
                }
                return delegate.accept(key, ballot, record, roundEpoch);
            }
        };
        Coordinator coordinatorA = new Coordinator(topology, Map.of(r, local(r), s, local(s), t, local(t)), clockA,
                new CoordinatorSettings(Duration.ofSeconds(WAIT_SECONDS), executorA));
        CompareAndSet writerA = new CompareAndSet(placement, () -> 3, Map.of(r, PaxosPeer.local(r, acceptors.get(r)), s, sRacedByB,
                t, PaxosPeer.local(t, acceptors.get(t))), coordinatorA, clockA, null, executorA);

        CasOutcome a = writerA.write(KEY, oldVersion, timestamp -> Record.value(timestamp, utf8("A")),
                new ReplicationParams(2, 3)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        gatedT.open();
        CasOutcome b = outcomeB.getFirst().get(WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat("B won at S and T", b, instanceOf(CasOutcome.Applied.class));
        assertThat("A lost to B, or cannot tell; never a second winner", a, not(instanceOf(CasOutcome.Applied.class)));
        assertThat(new String(engines.get(s).get(KEY).orElseThrow().value(), StandardCharsets.UTF_8), is("B"));
        assertThat(new String(engines.get(t).get(KEY).orElseThrow().value(), StandardCharsets.UTF_8), is("B"));
    }

    /**
     * A proposal that lost an earlier instance must not be finished over that instance's winner.
     * From the old version: V's proposal (stamped t0) is accepted by R alone; Q's (stamped tq > t0,
     * judged on the old version too) by S alone (both proposers then paused). Proposer P, which
     * cannot reach S, finds V's proposal in progress at R, finishes it at R and T and commits it
     * there: V's write is chosen and current at R and T; S missed it and still holds Q's
     * acceptance. Writer W, expecting the version T now holds, reaches S and T. Before the fix V's
     * write was committed with its first stamp t0, below Q's: S reported Q's proposal as in
     * progress and W kept it (stamped above the quorum's newest version), finished Q's losing write
     * over V's chosen one and answered 412; the key ended with Q's value, a write judged on a
     * version that was no longer current. The chaos workload's double winners have this shape: V's
     * proposer found its write current and answered 201, then Q's proposer, retrying, found its own
     * record current and answered 201 too (or 504: the overwritten winner).
     *
     * <p>The cause in Paxos terms: T hides V's acceptance (committed there) and S reports Q's, and
     * the proposer compares record stamps (Q's tq above V's t0) where it should compare accepted
     * ballots (V's, P's ballot, above Q's tq). The fix: promises always carry the accepted ballot,
     * with whether the replica holds that proposal already, and the proposer finishes the proposal
     * of the highest accepted ballot unless one replica holds it.
     */
    @Test
    void aProposalThatLostAnEarlierInstanceIsNotFinishedOverItsWinner() throws Exception {
        List<ClusterNode> order = placement.order(KEY);
        ClusterNode r = order.get(0);
        ClusterNode s = order.get(1);
        ClusterNode t = order.get(2);
        long t0 = new HybridLogicalClock(() -> 1_000L).now();
        long tq = new HybridLogicalClock(() -> 2_000L).now();

        // V's proposer: promised and accepted at R, then paused.
        assertThat(acceptors.get(r).prepare(KEY, t0, PaxosAcceptor.NO_EPOCH).granted(), is(true));
        assertThat(acceptors.get(r).accept(KEY, t0, Record.value(t0, utf8("V")), PaxosAcceptor.NO_EPOCH).granted(), is(true));
        // Q's proposer: a quorum of S and T saw nothing in progress and the old version; accepted at S only, then paused.
        assertThat(acceptors.get(s).prepare(KEY, tq, PaxosAcceptor.NO_EPOCH).granted(), is(true));
        assertThat(acceptors.get(t).prepare(KEY, tq, PaxosAcceptor.NO_EPOCH).granted(), is(true));
        assertThat(acceptors.get(s).accept(KEY, tq, Record.value(tq, utf8("Q")), PaxosAcceptor.NO_EPOCH).granted(), is(true));

        // P expects the old version too: it finishes V's write, then finds its own condition failed.
        HybridLogicalClock clockP = new HybridLogicalClock(() -> 3_000L);
        CasOutcome p = throughRAndT(clockP, executorB).write(KEY, oldVersion, timestamp -> Record.value(timestamp, utf8("P")),
                new ReplicationParams(2, 3)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(p, instanceOf(CasOutcome.Refused.class));
        Record chosen = engines.get(t).get(KEY).orElseThrow();
        assertThat(new String(chosen.value(), StandardCharsets.UTF_8), is("V"));

        HybridLogicalClock clockW = new HybridLogicalClock(() -> 4_000L);
        Coordinator coordinatorW = new Coordinator(topology, Map.of(r, new FailingReplica(r), s, local(s), t, local(t)), clockW,
                new CoordinatorSettings(Duration.ofSeconds(WAIT_SECONDS), executorA));
        CompareAndSet writerW = new CompareAndSet(placement, () -> 3, Map.of(r, unreachable(r), s, PaxosPeer.local(s, acceptors.get(s)),
                t, PaxosPeer.local(t, acceptors.get(t))), coordinatorW, clockW, null, executorA);
        CasCondition versionOfV = live -> live.isPresent() && live.get().timestamp() == chosen.timestamp();

        CasOutcome w = writerW.write(KEY, versionOfV, timestamp -> Record.value(timestamp, utf8("W")),
                new ReplicationParams(2, 3)).get(WAIT_SECONDS, TimeUnit.SECONDS);

        for (ClusterNode node : List.of(s, t)) {
            assertThat("Q's losing write is current on " + node,
                    new String(engines.get(node).get(KEY).orElseThrow().value(), StandardCharsets.UTF_8), not(is("Q")));
        }
        assertThat("V's version was current: W's condition held", w, instanceOf(CasOutcome.Applied.class));
    }

    /**
     * The metadata moves on (an epoch, the same three members) as the first prepare goes out: every
     * acceptor, whose view is the node's, refuses that round's epoch. The proposer, finding its own
     * view moved, starts again under the new one and writes; before, the round had no epoch and
     * nothing refused it, and without starting again the write would fail for want of replicas.
     */
    @Test
    void aPrepareTheReplicasRefuseForItsEpochStartsAgainUnderTheNewView() throws Exception {
        assertThat("the rounds' epochs", writeWhileTheMetadataMovesAtThe("prepare"), is(List.of(3L, 3L, 3L, 4L, 4L, 4L, 4L, 4L, 4L)));
    }

    /**
     * The same between the prepare and the accept: the accepts are refused, which the proposer
     * cannot tell from replicas that did not answer, so its proposal may have been accepted. Under
     * the new view it learns the old version is still current, and writes; it answered "unknown"
     * (504) if it did not start again.
     */
    @Test
    void anAcceptTheReplicasRefuseForItsEpochStartsAgainUnderTheNewView() throws Exception {
        assertThat("the rounds' epochs", writeWhileTheMetadataMovesAtThe("accept"),
                is(List.of(3L, 3L, 3L, 3L, 3L, 3L, 4L, 4L, 4L, 4L, 4L, 4L)));
    }

    /**
     * A conditional write through a node whose metadata moves from epoch 3 to 4 as the first
     * message of {@code phase} goes out, its acceptors' views the node's: the write must be
     * applied on every replica. Returns the epoch each prepare and accept carried, in order.
     */
    private List<Long> writeWhileTheMetadataMovesAtThe(String phase) throws Exception {
        ClusterNodes moving = ClusterNodes.of(urls, urls.get(0));
        moving.follow(metadataAt(3));
        Map<ClusterNode, PaxosPeer> peers = new HashMap<>();
        java.util.concurrent.atomic.AtomicBoolean moved = new java.util.concurrent.atomic.AtomicBoolean();
        List<Long> epochsSent = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Runnable moveOnceAt = () -> {
            if (moved.compareAndSet(false, true)) {
                moving.follow(metadataAt(4));
            }
        };
        Map<ClusterNode, Replica> replicas = new HashMap<>();
        for (ClusterNode node : moving.all()) {
            PaxosPeer local = PaxosPeer.local(node, new PaxosAcceptor(engines.get(node), timestamp -> false, moving::view));
            replicas.put(node, local(node));
            peers.put(node, new PaxosPeer() {
                @Override
                public ClusterNode node() {
                    return node;
                }

                @Override
                public CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot, long roundEpoch) {
                    epochsSent.add(roundEpoch);
                    if (phase.equals("prepare")) {
                        moveOnceAt.run();
                    }
                    return local.prepare(key, ballot, roundEpoch);
                }

                @Override
                public CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record, long roundEpoch) {
                    epochsSent.add(roundEpoch);
                    if (phase.equals("accept")) {
                        moveOnceAt.run();
                    }
                    return local.accept(key, ballot, record, roundEpoch);
                }
            });
        }
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_000L);
        Coordinator coordinator = new Coordinator(moving, replicas, clock, new CoordinatorSettings(Duration.ofSeconds(WAIT_SECONDS),
                executorA));
        CompareAndSet writer = new CompareAndSet(moving, () -> 3, peers::get, coordinator, clock, null, executorA);

        CasOutcome outcome = writer.write(KEY, oldVersion, timestamp -> Record.value(timestamp, utf8("new")),
                new ReplicationParams(3, 3)).get(WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat(outcome, instanceOf(CasOutcome.Applied.class));
        for (ClusterNode node : moving.all()) {
            assertThat(new String(engines.get(node).get(KEY).orElseThrow().value(), StandardCharsets.UTF_8), is("new"));
        }
        return epochsSent;
    }

    private io.ringkv.cluster.meta.ClusterMetadata metadataAt(long epoch) {
        List<io.ringkv.cluster.meta.Member> members = new java.util.ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            ClusterNode node = ClusterNode.parse(urls.get(i));
            members.add(new io.ringkv.cluster.meta.Member(io.ringkv.cluster.meta.Member.idOf(node), node.id(),
                    io.ringkv.cluster.meta.MemberState.NORMAL, i, null));
        }
        return new io.ringkv.cluster.meta.ClusterMetadata(epoch, 3, members);
    }

    /** A proposer that reaches R and T only (S refuses connections), writes included. */
    private CompareAndSet throughRAndT(HybridLogicalClock clock, ExecutorService executor) {
        List<ClusterNode> order = placement.order(KEY);
        ClusterNode r = order.get(0);
        ClusterNode s = order.get(1);
        ClusterNode t = order.get(2);
        Coordinator coordinator = new Coordinator(topology, Map.of(r, local(r), s, new FailingReplica(s), t, local(t)), clock,
                new CoordinatorSettings(Duration.ofSeconds(WAIT_SECONDS), executor));
        return new CompareAndSet(placement, () -> 3, Map.of(r, PaxosPeer.local(r, acceptors.get(r)), s, unreachable(s),
                t, PaxosPeer.local(t, acceptors.get(t))), coordinator, clock, null, executor);
    }

    private LocalReplica local(ClusterNode node) {
        return new LocalReplica(node, engines.get(node));
    }

    /** Waits for a value to be stored on a node: an event the test causes, bounded only to fail rather than hang. */
    private void awaitStoredOn(ClusterNode node, String value) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        try {
            while (!engines.get(node).get(KEY).map(stored -> new String(stored.value(), StandardCharsets.UTF_8).equals(value))
                    .orElse(false)) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(value + " never reached " + node);
                }
                Thread.sleep(1);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A node this proposer cannot reach: every call fails at once, as a refused connection would. */
    private static PaxosPeer unreachable(ClusterNode node) {
        return new PaxosPeer() {
            @Override
            public ClusterNode node() {
                return node;
            }

            @Override
            public CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot, long roundEpoch) {
                return CompletableFuture.failedFuture(new java.io.IOException("injected: " + node + " unreachable"));
            }

            @Override
            public CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record, long roundEpoch) {
                return CompletableFuture.failedFuture(new java.io.IOException("injected: " + node + " unreachable"));
            }
        };
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
