package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator against real replicas: a {@link LocalReplica} over a real engine per node,
 * with faults from decorators (failing, gated, flaky), never mocks.
 */
class CoordinatorTest {

    private static final long WALL_MILLIS = 1_700_000_000_000L;
    private static final long WAIT_SECONDS = 10;

    private final List<String> urls = List.of("http://n1:1", "http://n2:2", "http://n3:3");
    private final ClusterNodes topology = ClusterNodes.of(urls, urls.get(0));
    private final RendezvousPlacement placement = new RendezvousPlacement(topology);
    private final Map<ClusterNode, StorageEngine> engines = new HashMap<>();
    private final java.util.concurrent.atomic.AtomicLong wall = new java.util.concurrent.atomic.AtomicLong(WALL_MILLIS);
    private final HybridLogicalClock clock = new HybridLogicalClock(wall::get);
    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    CoordinatorTest() {
        topology.all().forEach(node -> engines.put(node, new InMemoryStorageEngine()));
    }

    @AfterEach
    void stopExecutor() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    @Test
    void putIsAcknowledgedAndEveryReplicaStoresTheSameStampedRecord() throws Exception {
        byte[] key = utf8("k1");
        WriteOutcome outcome = await(coordinator(Map.of()).put(key, utf8("v1"), new ReplicationParams(2, 3)));
        assertThat(outcome, instanceOf(WriteOutcome.Acknowledged.class));
        long timestamp = ((WriteOutcome.Acknowledged) outcome).timestamp();
        for (ClusterNode node : topology.all()) {
            assertThat(stored(node, key), equalTo(Optional.of(Record.value(timestamp, utf8("v1")))));
        }
    }

    /** Every replica computes nothing: the coordinator stamps the expiry with the timestamp, and each stores both. */
    @Test
    void aPutWithATtlStoresTheSameExpiryEverywhereCountedFromTheWritesTimestamp() throws Exception {
        byte[] key = utf8("ttl");
        WriteOutcome outcome = await(coordinator(Map.of()).put(key, utf8("v"), new Ttl(2), new ReplicationParams(3, 3)));
        long timestamp = ((WriteOutcome.Acknowledged) outcome).timestamp();
        Record expected = Record.expiring(timestamp, utf8("v"), HybridLogicalClock.millisOf(timestamp) + 2_000);
        for (ClusterNode node : topology.all()) {
            assertThat(stored(node, key), equalTo(Optional.of(expected)));
        }
    }

    @Test
    void aReadFindsAnExpiringRecordUntilTheClockReachesItsExpiry() throws Exception {
        byte[] key = utf8("ttl-read");
        Coordinator coordinator = coordinator(Map.of());
        await(coordinator.put(key, utf8("v"), new Ttl(2), new ReplicationParams(3, 3)));
        wall.set(WALL_MILLIS + 1_999);
        assertThat(await(coordinator.get(key, new ReplicationParams(2, 3))), instanceOf(ReadOutcome.Found.class));
        wall.set(WALL_MILLIS + 2_000);
        assertThat(await(coordinator.get(key, new ReplicationParams(2, 3))), instanceOf(ReadOutcome.NotFound.class));
    }

    /**
     * An expired record is the newest version of its key: a read answers 404 and still repairs a
     * replica that holds an older value with it, so that value cannot come back later.
     */
    @Test
    void anExpiredNewestRecordReadsAsNotFoundAndStillRepairsAStaleReplica() throws Exception {
        byte[] key = utf8("ttl-repair");
        List<ClusterNode> order = placement.order(key);
        Record older = Record.value(100, utf8("old"));
        Record expired = Record.expiring(200, utf8("new"), WALL_MILLIS - 1);
        engines.get(order.get(0)).apply(key, expired);
        engines.get(order.get(1)).apply(key, older);
        Coordinator coordinator = coordinator(Map.of());
        assertThat(await(coordinator.get(key, new ReplicationParams(2, 2))), instanceOf(ReadOutcome.NotFound.class));
        ReplicatedOperation read = coordinator.startRead(key, new ReplicationParams(2, 2));
        read.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(stored(order.get(1), key), equalTo(Optional.of(expired)));
    }

    /** A write stamped again (replicas held something fresher) keeps its time to live from the new stamp. */
    @Test
    void aWriteStampedAgainKeepsItsTimeToLive() throws Exception {
        byte[] key = utf8("ttl-behind");
        List<ClusterNode> order = placement.order(key);
        Record earlier = Record.value(HybridLogicalClock.timestampOf(WALL_MILLIS + 400, 0, 2), utf8("earlier"));
        engines.get(order.get(0)).apply(key, earlier);
        engines.get(order.get(1)).apply(key, earlier);
        WriteOutcome outcome = await(coordinator(Map.of()).put(key, utf8("later"), new Ttl(5), new ReplicationParams(2, 3)));
        long stamped = ((WriteOutcome.Acknowledged) outcome).timestamp();
        assertThat(stamped, greaterThan(earlier.timestamp()));
        assertThat(stored(order.get(0), key), equalTo(Optional.of(
                Record.expiring(stamped, utf8("later"), HybridLogicalClock.millisOf(stamped) + 5_000))));
    }

    @Test
    void writeWithFromTwoLeavesTheThirdNodeWithoutACopy() throws Exception {
        byte[] key = utf8("k2");
        await(coordinator(Map.of()).put(key, utf8("v"), new ReplicationParams(2, 2)));
        List<ClusterNode> order = placement.order(key);
        assertThat(stored(order.get(0), key).isPresent() && stored(order.get(1), key).isPresent(), is(true));
        assertThat(stored(order.get(2), key), equalTo(Optional.empty()));
    }

    @Test
    void answersOnceAckRepliesArrivedWithoutWaitingForTheSlowestReplica() throws Exception {
        byte[] key = utf8("k3");
        ClusterNode slow = placement.order(key).get(2);
        GatedReplica[] gated = new GatedReplica[1];
        Coordinator coordinator = coordinator(Map.of(slow, replica -> gated[0] = new GatedReplica(replica)));
        CompletableFuture<WriteOutcome> put = coordinator.put(key, utf8("v"), new ReplicationParams(2, 3));
        assertThat(put.isDone(), is(true));
        assertThat(await(put), instanceOf(WriteOutcome.Acknowledged.class));
        assertThat(gated[0].pendingCalls(), is(1));
        assertThat(stored(slow, key), equalTo(Optional.empty()));
        gated[0].open();
        assertThat(stored(slow, key).isPresent(), is(true));
    }

    /**
     * A write acknowledged through a node whose clock was ahead (within the bound) and then a
     * later write through this node: the later one must win, though this clock stamps it lower.
     */
    @Test
    void aWriteStampedBelowWhatAQuorumHoldsIsStampedAgainAboveItAndWins() throws Exception {
        byte[] key = utf8("behind");
        List<ClusterNode> order = placement.order(key);
        Record earlier = Record.value(HybridLogicalClock.timestampOf(WALL_MILLIS + 400, 0, 2), utf8("earlier"));
        engines.get(order.get(0)).apply(key, earlier);
        engines.get(order.get(1)).apply(key, earlier);
        WriteOutcome outcome = await(coordinator(Map.of()).put(key, utf8("later"), new ReplicationParams(2, 3)));
        assertThat(outcome, instanceOf(WriteOutcome.Acknowledged.class));
        long stamped = ((WriteOutcome.Acknowledged) outcome).timestamp();
        assertThat(stamped, greaterThan(earlier.timestamp()));
        for (ClusterNode node : topology.all()) {
            assertThat(stored(node, key), equalTo(Optional.of(Record.value(stamped, utf8("later")))));
        }
    }

    /**
     * Records further ahead than the clock bound (a node whose clock ran fast stored them) cannot be
     * followed: stamping above them would make a write every peer refuses. The write is answered
     * as short of its quorum, and the clock does not jump.
     */
    @Test
    void aWriteIsNotStampedAboveRecordsBeyondTheClockBound() throws Exception {
        byte[] key = utf8("far-ahead");
        List<ClusterNode> order = placement.order(key);
        Record farAhead = Record.value(HybridLogicalClock.timestampOf(WALL_MILLIS + 3_000, 0, 2), utf8("fast clock"));
        engines.get(order.get(0)).apply(key, farAhead);
        engines.get(order.get(1)).apply(key, farAhead);
        Map<ClusterNode, Replica> replicas = new HashMap<>();
        topology.all().forEach(node -> replicas.put(node, new LocalReplica(node, engines.get(node))));
        ClockSkew skew = new ClockSkew(clock, 500, java.util.Set.of(urls.get(1), urls.get(2)));
        skew.measured(urls.get(1), WALL_MILLIS, WALL_MILLIS, 1); // a peer agrees: this node may stamp
        Coordinator bounded = new Coordinator(topology, replicas, clock, new CoordinatorSettings(Duration.ofSeconds(WAIT_SECONDS), executor),
                MissedWriteListener.NONE, skew);
        WriteOutcome outcome = await(bounded.put(key, utf8("v"), new ReplicationParams(2, 3)));
        assertThat(outcome, instanceOf(NotEnoughReplicas.class));
        assertThat(HybridLogicalClock.millisOf(clock.lastTimestamp()) < WALL_MILLIS + 3_000, is(true));
        assertThat(stored(order.get(0), key), equalTo(Optional.of(farAhead)));
    }

    /** One replica with a fresher record does not stop a write the other two store: that is a quorum. */
    @Test
    void oneReplicaHoldingAFresherRecordDoesNotCostAWriteItsQuorum() throws Exception {
        byte[] key = utf8("one-fresher");
        List<ClusterNode> order = placement.order(key);
        Record fresher = Record.value(HybridLogicalClock.timestampOf(WALL_MILLIS + 400, 0, 2), utf8("fresher"));
        engines.get(order.get(2)).apply(key, fresher);
        WriteOutcome outcome = await(coordinator(Map.of()).put(key, utf8("v"), new ReplicationParams(2, 3)));
        long stamped = ((WriteOutcome.Acknowledged) outcome).timestamp();
        assertThat(stamped < fresher.timestamp(), is(true));
        assertThat(stored(order.get(0), key), equalTo(Optional.of(Record.value(stamped, utf8("v")))));
        assertThat(stored(order.get(2), key), equalTo(Optional.of(fresher)));
    }

    @Test
    void answersNotEnoughReplicasAsSoonAsSuccessIsImpossible() throws Exception {
        byte[] key = utf8("k4");
        List<ClusterNode> order = placement.order(key);
        GatedReplica[] gated = new GatedReplica[1];
        Coordinator coordinator = coordinator(Map.of(
                order.get(0), replica -> new FailingReplica(replica.node()),
                order.get(1), replica -> new FailingReplica(replica.node()),
                order.get(2), replica -> gated[0] = new GatedReplica(replica)));
        CompletableFuture<WriteOutcome> put = coordinator.put(key, utf8("v"), new ReplicationParams(2, 3));
        assertThat(put.isDone(), is(true));
        assertThat(await(put), equalTo(new NotEnoughReplicas(0, 2, 2, 3, false)));
        assertThat(gated[0].pendingCalls(), is(1));
        gated[0].open();
    }

    @Test
    void answersNotEnoughReplicasAtTheDeadlineWhenRepliesNeverCome() throws Exception {
        byte[] key = utf8("k5");
        Map<ClusterNode, GatedReplica> gated = new HashMap<>();
        Map<ClusterNode, UnaryOperator<Replica>> decorators = new HashMap<>();
        topology.all().forEach(node -> decorators.put(node, replica -> {
            GatedReplica gate = new GatedReplica(replica);
            gated.put(node, gate);
            return gate;
        }));
        Coordinator coordinator = coordinator(decorators, Duration.ofMillis(50));
        ReplicatedOperation operation = coordinator.startRead(key, new ReplicationParams(1, 3));
        assertThat(await(operation.result()), equalTo(new NotEnoughReplicas(0, 0, 1, 3, true)));
        assertThat(operation.phase(), is(CoordinatorPhase.TIMED_OUT));
        gated.values().forEach(GatedReplica::open);
        operation.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(operation.phase(), is(CoordinatorPhase.DONE));
    }

    @Test
    void getReturnsTheFreshestOfTheAckAnswersAndRepairsTheStaleReplica() throws Exception {
        byte[] key = utf8("k6");
        List<ClusterNode> order = placement.order(key);
        Record older = Record.value(100, utf8("old"));
        Record newer = Record.value(200, utf8("new"));
        engines.get(order.get(0)).apply(key, older);
        engines.get(order.get(1)).apply(key, newer);
        ReplicatedOperation read = coordinator(Map.of()).startRead(key, new ReplicationParams(2, 2));
        assertThat(await(read.result()), equalTo(new ReadOutcome.Found(newer)));
        read.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(read.phase(), is(CoordinatorPhase.DONE));
        assertThat(stored(order.get(0), key), equalTo(Optional.of(newer)));
    }

    /**
     * Every write and read repair tells its replica the epoch of the view that chose it, so that a
     * replica that knows a newer one can drop a copy it no longer owns ({@link Cleanup#storedFrom}).
     */
    @Test
    void writesAndReadRepairsSayTheEpochOfTheViewThatRoutedThem() throws Exception {
        List<io.ringkv.cluster.meta.Member> members = new java.util.ArrayList<>();
        for (ClusterNode node : topology.all()) {
            members.add(new io.ringkv.cluster.meta.Member(io.ringkv.cluster.meta.Member.idOf(node), node.id(),
                    io.ringkv.cluster.meta.MemberState.NORMAL, members.size(), null));
        }
        topology.follow(new io.ringkv.cluster.meta.ClusterMetadata(9, 3, members));
        List<String> routed = new java.util.concurrent.CopyOnWriteArrayList<>();
        UnaryOperator<Replica> recording = replica -> new Replica() {
            @Override
            public ClusterNode node() {
                return replica.node();
            }

            @Override
            public CompletableFuture<Optional<Record>> read(byte[] key) {
                return replica.read(key);
            }

            @Override
            public CompletableFuture<java.util.OptionalLong> write(byte[] key, Record record) {
                routed.add("not said");
                return replica.write(key, record);
            }

            @Override
            public CompletableFuture<java.util.OptionalLong> write(byte[] key, Record record, long routedAt) {
                routed.add(Long.toString(routedAt));
                return replica.write(key, record);
            }
        };
        Map<ClusterNode, UnaryOperator<Replica>> everyReplica = new HashMap<>();
        topology.all().forEach(node -> everyReplica.put(node, recording));
        Coordinator coordinator = coordinator(everyReplica);

        await(coordinator.put(utf8("routed"), utf8("v"), new ReplicationParams(2, 3)));
        assertThat("each replica's write", routed, is(List.of("9", "9", "9")));

        routed.clear();
        byte[] key = utf8("repaired");
        List<ClusterNode> order = placement.order(key);
        engines.get(order.get(0)).apply(key, Record.value(100, utf8("old")));
        engines.get(order.get(1)).apply(key, Record.value(200, utf8("new")));
        ReplicatedOperation read = coordinator.startRead(key, new ReplicationParams(2, 2));
        await(read.result());
        read.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat("the read repair", routed, is(List.of("9")));
    }

    @Test
    void aFresherTombstoneReadsAsNotFound() throws Exception {
        byte[] key = utf8("k7");
        List<ClusterNode> order = placement.order(key);
        engines.get(order.get(0)).apply(key, Record.value(100, utf8("v")));
        engines.get(order.get(1)).apply(key, Record.tombstone(150));
        assertThat(await(coordinator(Map.of()).get(key, new ReplicationParams(2, 2))), instanceOf(ReadOutcome.NotFound.class));
    }

    @Test
    void aKeyNoReplicaHasReadsAsNotFound() throws Exception {
        assertThat(await(coordinator(Map.of()).get(utf8("absent"), new ReplicationParams(3, 3))),
                instanceOf(ReadOutcome.NotFound.class));
    }

    @Test
    void getOneOfTwoSeesPutTwoOfTwoWithEitherReplicaDown() throws Exception {
        byte[] key = utf8("k8");
        await(coordinator(Map.of()).put(key, utf8("v"), new ReplicationParams(2, 2)));
        for (ClusterNode down : placement.replicas(key, 2)) {
            Coordinator degraded = coordinator(Map.of(down, replica -> new FailingReplica(down)));
            ReadOutcome outcome = await(degraded.get(key, new ReplicationParams(1, 2)));
            assertThat(outcome, instanceOf(ReadOutcome.Found.class));
            assertThat(((ReadOutcome.Found) outcome).value(), equalTo(utf8("v")));
        }
    }

    @Test
    void getOneOfTwoSeesDeleteTwoOfTwoWithEitherReplicaDown() throws Exception {
        byte[] key = utf8("k9");
        Coordinator healthy = coordinator(Map.of());
        await(healthy.put(key, utf8("v"), new ReplicationParams(2, 2)));
        assertThat(await(healthy.delete(key, new ReplicationParams(2, 2))), instanceOf(WriteOutcome.Acknowledged.class));
        for (ClusterNode down : placement.replicas(key, 2)) {
            Coordinator degraded = coordinator(Map.of(down, replica -> new FailingReplica(down)));
            assertThat(await(degraded.get(key, new ReplicationParams(1, 2))), instanceOf(ReadOutcome.NotFound.class));
        }
    }

    @Test
    void getTwoOfThreeSeesPutAndDeleteTwoOfThreeMadeWithOneReplicaDown() throws Exception {
        byte[] key = utf8("k10");
        for (ClusterNode downAtWrite : topology.all()) {
            Coordinator writer = coordinator(Map.of(downAtWrite, replica -> new FailingReplica(downAtWrite)));
            assertThat(await(writer.put(key, utf8("v-" + downAtWrite), ReplicationParams.defaultFor(3))),
                    instanceOf(WriteOutcome.Acknowledged.class));
            for (ClusterNode downAtRead : topology.all()) {
                Coordinator reader = coordinator(Map.of(downAtRead, replica -> new FailingReplica(downAtRead)));
                ReadOutcome outcome = await(reader.get(key, ReplicationParams.defaultFor(3)));
                assertThat(((ReadOutcome.Found) outcome).value(), equalTo(utf8("v-" + downAtWrite)));
            }
            assertThat(await(writer.delete(key, ReplicationParams.defaultFor(3))), instanceOf(WriteOutcome.Acknowledged.class));
            for (ClusterNode downAtRead : topology.all()) {
                Coordinator reader = coordinator(Map.of(downAtRead, replica -> new FailingReplica(downAtRead)));
                assertThat(await(reader.get(key, ReplicationParams.defaultFor(3))), instanceOf(ReadOutcome.NotFound.class));
            }
        }
    }

    @Test
    void quorumWritesSurviveTheLossOfAnyOneOfThreeReplicasUnderSeededFlakiness() throws Exception {
        Map<ClusterNode, UnaryOperator<Replica>> flaky = new HashMap<>();
        int seed = 0;
        for (ClusterNode node : topology.all()) {
            long nodeSeed = 42 + seed++;
            flaky.put(node, replica -> new FlakyReplica(replica, nodeSeed, 0.3));
        }
        Coordinator writer = coordinator(flaky);
        Map<String, Boolean> acknowledged = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            WriteOutcome outcome = await(writer.put(utf8("key" + i), utf8("value" + i), ReplicationParams.defaultFor(3)));
            acknowledged.put("key" + i, outcome instanceof WriteOutcome.Acknowledged);
        }
        assertThat(acknowledged.containsValue(false) && acknowledged.containsValue(true), is(true));
        for (ClusterNode down : topology.all()) {
            Coordinator reader = coordinator(Map.of(down, replica -> new FailingReplica(down)));
            for (var entry : acknowledged.entrySet()) {
                if (entry.getValue()) {
                    ReadOutcome outcome = await(reader.get(utf8(entry.getKey()), ReplicationParams.defaultFor(3)));
                    assertThat(entry.getKey(), ((ReadOutcome.Found) outcome).value(),
                            equalTo(utf8(entry.getKey().replace("key", "value"))));
                }
            }
        }
    }

    @Test
    void observesTimestampsSeenOnReplicasIntoTheClock() throws Exception {
        byte[] key = utf8("k11");
        long ahead = HybridLogicalClock.timestampOf(WALL_MILLIS + 60_000, 5);
        for (ClusterNode node : topology.all()) {
            engines.get(node).apply(key, Record.value(ahead, utf8("from the future")));
        }
        await(coordinator(Map.of()).get(key, new ReplicationParams(1, 1)));
        assertThat("without a clock bound (no ClockSkew) every answer is observed", clock.now(), greaterThan(ahead));
    }

    @Test
    void aReplicaAnswerStampedBeyondTheClockBoundIsAFailedReplyAndNotObserved() throws Exception {
        byte[] key = utf8("k11b");
        long ahead = HybridLogicalClock.timestampOf(WALL_MILLIS + 60_000, 5);
        for (ClusterNode node : topology.all()) {
            engines.get(node).apply(key, Record.value(ahead, utf8("from the future")));
        }
        Map<ClusterNode, Replica> replicas = new java.util.HashMap<>();
        for (ClusterNode node : topology.all()) {
            replicas.put(node, new LocalReplica(node, engines.get(node)));
        }
        Coordinator bounded = new Coordinator(topology, replicas, clock, new CoordinatorSettings(java.time.Duration.ofSeconds(5), Runnable::run),
                MissedWriteListener.NONE, new ClockSkew(clock, 500, java.util.Set.of()));
        ReadOutcome read = await(bounded.get(key, new ReplicationParams(1, 1)));
        assertThat(read instanceof ReadOutcome.Found, is(false));
        assertThat(HybridLogicalClock.millisOf(clock.now()), is(WALL_MILLIS));
    }

    /**
     * A write failure reported on an event loop's thread (as the network reports it) is hinted on
     * the coordinator's executor: the hint is a storage write, which must never block a loop.
     */
    @Test
    void aWriteFailureSeenOnAnEventLoopIsHintedOffTheLoop() throws Exception {
        byte[] key = utf8("k-loop");
        ClusterNode remote = placement.order(key).get(0);
        try (io.ringkv.net.EventLoopGroup loops = new io.ringkv.net.EventLoopGroup(1, "test-network")) {
            io.ringkv.net.EventLoop loop = loops.next();
            Map<ClusterNode, Replica> replicas = new HashMap<>();
            for (ClusterNode node : topology.all()) {
                replicas.put(node, new LocalReplica(node, engines.get(node)));
            }
            replicas.put(remote, new Replica() {
                @Override
                public ClusterNode node() {
                    return remote;
                }

                @Override
                public CompletableFuture<Optional<Record>> read(byte[] k) {
                    return CompletableFuture.failedFuture(new java.io.IOException("injected: down"));
                }

                @Override
                public CompletableFuture<java.util.OptionalLong> write(byte[] k, Record record) {
                    CompletableFuture<java.util.OptionalLong> failed = new CompletableFuture<>();
                    loop.execute(() -> failed.completeExceptionally(new java.io.IOException("injected: down")));
                    return failed;
                }
            });
            CompletableFuture<Boolean> hintedOnALoop = new CompletableFuture<>();
            Coordinator coordinator = new Coordinator(topology, replicas, clock,
                    new CoordinatorSettings(Duration.ofSeconds(5), executor),
                    (node, k, record) -> hintedOnALoop.complete(io.ringkv.net.EventLoop.inAnyLoop()),
                    new ClockSkew(clock, 500, java.util.Set.of()));
            assertThat(await(coordinator.put(key, utf8("v"), new ReplicationParams(2, 3))), instanceOf(WriteOutcome.Acknowledged.class));
            assertThat(await(hintedOnALoop), is(false));
        }
    }

    @Test
    void aReplicaThatThrowsCountsAsAFailedReply() throws Exception {
        byte[] key = utf8("k12");
        ClusterNode broken = placement.order(key).get(0);
        Coordinator coordinator = coordinator(Map.of(broken, replica -> new ThrowingReplica(broken)));
        assertThat(await(coordinator.put(key, utf8("v"), new ReplicationParams(3, 3))),
                equalTo(new NotEnoughReplicas(0, 1, 3, 3, false)));
    }

    @Test
    void aOneNodeClusterBehavesLikeASingleNode() throws Exception {
        ClusterNodes single = ClusterNodes.single("http://only:1");
        StorageEngine engine = new InMemoryStorageEngine();
        Coordinator coordinator = new Coordinator(single, Map.of(single.self(), new LocalReplica(single.self(), engine)),
                clock, new CoordinatorSettings(Duration.ofSeconds(1), executor));
        ReplicationParams params = ReplicationParams.parse(null, 1);
        assertThat(await(coordinator.get(utf8("a"), params)), instanceOf(ReadOutcome.NotFound.class));
        assertThat(await(coordinator.put(utf8("a"), new byte[0], params)), instanceOf(WriteOutcome.Acknowledged.class));
        assertThat(((ReadOutcome.Found) await(coordinator.get(utf8("a"), params))).value(), equalTo(new byte[0]));
        assertThat(await(coordinator.delete(utf8("a"), params)), instanceOf(WriteOutcome.Acknowledged.class));
        assertThat(await(coordinator.get(utf8("a"), params)), instanceOf(ReadOutcome.NotFound.class));
    }

    @Test
    void callsTheLocalReplicaOnTheCallersThread() throws Exception {
        List<Thread> callers = new java.util.concurrent.CopyOnWriteArrayList<>();
        Coordinator coordinator = coordinator(Map.of(topology.self(), replica -> new ThreadRecordingReplica(replica, callers)));
        byte[] key = utf8("k13");
        await(coordinator.put(key, utf8("v"), new ReplicationParams(3, 3)));
        await(coordinator.get(key, new ReplicationParams(3, 3)));
        assertThat(callers, contains(Thread.currentThread(), Thread.currentThread()));
    }

    @Test
    void rejectsFromLargerThanTheCluster() {
        assertThrows(IllegalArgumentException.class,
                () -> coordinator(Map.of()).get(utf8("k"), new ReplicationParams(1, 4)));
    }

    @Test
    void theCallListenerHearsOfEveryRemoteReplicaAndNotOfTheLocalOne() throws Exception {
        byte[] key = utf8("k-listened");
        ClusterNode failing = topology.others().get(0);
        List<String> heard = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Map<ClusterNode, Replica> replicas = new HashMap<>();
        for (ClusterNode node : topology.all()) {
            replicas.put(node, node.equals(failing) ? new FailingReplica(node) : new LocalReplica(node, engines.get(node)));
        }
        Coordinator coordinator = new Coordinator(topology, replicas, clock,
                new CoordinatorSettings(Duration.ofSeconds(WAIT_SECONDS), executor), MissedWriteListener.NONE, null,
                (peer, elapsedNanos, failure) -> heard.add(peer.id() + (failure == null ? " ok" : " failed")));
        ReplicatedOperation write = coordinator.startWrite(key, Record.value(clock.now(), utf8("v")), new ReplicationParams(2, 3));
        write.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(new java.util.TreeSet<>(heard), equalTo(new java.util.TreeSet<>(List.of(
                failing.id() + " failed", topology.others().get(1).id() + " ok"))));
    }

    /** The remote replica of {@code key} that a 2/3 read through n1 keeps as its spare: the last remote one in placement order. */
    private ClusterNode spareOf(byte[] key) {
        List<ClusterNode> remotes = placement.order(key).stream().filter(node -> !topology.isSelf(node)).toList();
        return remotes.get(remotes.size() - 1);
    }

    private ClusterNode firstRemoteOf(byte[] key) {
        return placement.order(key).stream().filter(node -> !topology.isSelf(node)).findFirst().orElseThrow();
    }

    @Test
    void aReadAsksAckReplicasAndLeavesTheSpareAloneWhenTheyAnswer() throws Exception {
        byte[] key = utf8("spare-idle");
        Record stored = Record.value(100, utf8("v"));
        for (ClusterNode node : topology.all()) {
            engines.get(node).apply(key, stored);
        }
        List<Thread> spareCalls = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Coordinator coordinator = coordinator(Map.of(spareOf(key), replica -> new ThreadRecordingReplica(replica, spareCalls)));
        ReplicatedOperation read = coordinator.startRead(key, new ReplicationParams(2, 3));
        assertThat(await(read.result()), equalTo(new ReadOutcome.Found(stored)));
        read.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat("the spare was not asked", spareCalls, is(empty()));
    }

    @Test
    void aFailedReplicaBringsTheSpareInAndTheReadStillSucceeds() throws Exception {
        byte[] key = utf8("spare-failover");
        Record stored = Record.value(100, utf8("v"));
        for (ClusterNode node : topology.all()) {
            engines.get(node).apply(key, stored);
        }
        Coordinator coordinator = coordinator(Map.of(firstRemoteOf(key), replica -> new FailingReplica(replica.node())),
                Duration.ofSeconds(WAIT_SECONDS), Duration.ofHours(1));
        assertThat(await(coordinator.get(key, new ReplicationParams(2, 3))), equalTo(new ReadOutcome.Found(stored)));
    }

    @Test
    void aSlowReplicaBringsTheSpareInAfterTheSpareDelay() throws Exception {
        byte[] key = utf8("spare-slow");
        Record stored = Record.value(100, utf8("v"));
        for (ClusterNode node : topology.all()) {
            engines.get(node).apply(key, stored);
        }
        GatedReplica[] slow = new GatedReplica[1];
        Coordinator coordinator = coordinator(Map.of(firstRemoteOf(key), replica -> slow[0] = new GatedReplica(replica)),
                Duration.ofSeconds(WAIT_SECONDS), Duration.ofMillis(20));
        assertThat(await(coordinator.get(key, new ReplicationParams(2, 3))), equalTo(new ReadOutcome.Found(stored)));
        assertThat("the slow replica has still not answered", slow[0].pendingCalls(), is(1));
        slow[0].open();
    }

    @Test
    void withoutASpareDelayEveryReplicaIsAskedAtOnce() throws Exception {
        byte[] key = utf8("spare-none");
        List<Thread> spareCalls = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Coordinator coordinator = coordinator(Map.of(spareOf(key), replica -> new ThreadRecordingReplica(replica, spareCalls)),
                Duration.ofSeconds(WAIT_SECONDS), Duration.ZERO);
        ReplicatedOperation read = coordinator.startRead(key, new ReplicationParams(2, 3));
        await(read.result());
        read.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(spareCalls.size(), is(1));
    }

    private Coordinator coordinator(Map<ClusterNode, UnaryOperator<Replica>> decorators) {
        return coordinator(decorators, Duration.ofSeconds(WAIT_SECONDS));
    }

    private Coordinator coordinator(Map<ClusterNode, UnaryOperator<Replica>> decorators, Duration deadline, Duration spareDelay) {
        Map<ClusterNode, Replica> replicas = new HashMap<>();
        for (ClusterNode node : topology.all()) {
            Replica local = new LocalReplica(node, engines.get(node));
            replicas.put(node, decorators.getOrDefault(node, UnaryOperator.identity()).apply(local));
        }
        return new Coordinator(topology, replicas, clock, new CoordinatorSettings(deadline, executor, spareDelay));
    }

    private Coordinator coordinator(Map<ClusterNode, UnaryOperator<Replica>> decorators, Duration deadline) {
        Map<ClusterNode, Replica> replicas = new HashMap<>();
        for (ClusterNode node : topology.all()) {
            Replica local = new LocalReplica(node, engines.get(node));
            replicas.put(node, decorators.getOrDefault(node, UnaryOperator.identity()).apply(local));
        }
        return new Coordinator(topology, replicas, clock, new CoordinatorSettings(deadline, executor));
    }

    private Optional<Record> stored(ClusterNode node, byte[] key) throws Exception {
        return engines.get(node).get(key);
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private record ThreadRecordingReplica(Replica delegate, List<Thread> callers) implements Replica {
        @Override
        public ClusterNode node() {
            return delegate.node();
        }

        @Override
        public CompletableFuture<Optional<Record>> read(byte[] key) {
            callers.add(Thread.currentThread());
            return delegate.read(key);
        }

        @Override
        public CompletableFuture<java.util.OptionalLong> write(byte[] key, Record record) {
            callers.add(Thread.currentThread());
            return delegate.write(key, record);
        }
    }

    /** Breaks the Replica contract by throwing instead of failing its future. */
    private record ThrowingReplica(ClusterNode node) implements Replica {
        @Override
        public CompletableFuture<Optional<Record>> read(byte[] key) {
            throw new IllegalStateException("injected: throws instead of failing the future");
        }

        @Override
        public CompletableFuture<java.util.OptionalLong> write(byte[] key, Record record) {
            throw new IllegalStateException("injected: throws instead of failing the future");
        }
    }
}
