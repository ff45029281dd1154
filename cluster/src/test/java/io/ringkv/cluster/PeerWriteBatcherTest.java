package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link PeerWriteBatcher} (and so {@link PeerBatcher}) against a real peer over h2c on 127.0.0.1,
 * a {@link GatedPeer} holding its answer to the first write batch until the test lets it go.
 */
class PeerWriteBatcherTest extends GatedPeerTestBase {

    @Override
    String gatedPath() {
        return InternalProtocol.WRITES_PATH;
    }

    @Test
    void writesMadeWhileABatchIsUnansweredLeaveTogetherInTheNext() throws Exception {
        PeerWriteBatcher batcher = new PeerWriteBatcher(servePeer(), client, 1);
        CompletableFuture<OptionalLong> first = batcher.write(utf8("k0"), Record.value(10, utf8("v0")));
        peer.awaitSeen(1);
        List<CompletableFuture<OptionalLong>> queued = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            queued.add(batcher.write(utf8("k" + i), Record.value(10 + i, utf8("v" + i))));
        }
        assertThat(batcher.queuedForTests(), is(5));
        assertThat(first.isDone() || queued.stream().anyMatch(CompletableFuture::isDone), is(false));

        peer.open();
        assertThat(await(first), is(OptionalLong.empty()));
        for (CompletableFuture<OptionalLong> write : queued) {
            assertThat(await(write), is(OptionalLong.empty()));
        }
        assertThat(peer.seen(), contains("writes 1", "writes 5"));
        assertThat(batcher.counts(), is(new PeerBatches.Counts(2, 6)));
        for (int i = 0; i <= 5; i++) {
            assertThat(engine.get(utf8("k" + i)), is(Optional.of(Record.value(10 + i, utf8("v" + i)))));
        }
        assertThat(batcher.queuedForTests(), is(0));
    }

    @Test
    void eachWriteGetsItsOwnAnswerFromTheBatch() throws Exception {
        engine.apply(utf8("held"), Record.value(100, utf8("newer")));
        PeerWriteBatcher batcher = new PeerWriteBatcher(servePeer(), client, 1);
        CompletableFuture<OptionalLong> first = batcher.write(utf8("a"), Record.value(10, utf8("x")));
        peer.awaitSeen(1);
        long ahead = HybridLogicalClock.timestampOf(WALL_MILLIS + 10_000, 0);
        CompletableFuture<OptionalLong> older = batcher.write(utf8("held"), Record.value(50, utf8("older")));
        CompletableFuture<OptionalLong> refused = batcher.write(utf8("b"), Record.value(ahead, utf8("from a fast clock")));
        CompletableFuture<OptionalLong> fine = batcher.write(utf8("c"), Record.value(11, utf8("y")));
        CompletableFuture<OptionalLong> same = batcher.write(utf8("held"), Record.value(100, utf8("newer")));
        peer.open();

        assertThat(await(first), is(OptionalLong.empty()));
        assertThat(await(older), is(OptionalLong.of(100)));
        Throwable refusal = failure(refused);
        assertThat(refusal, instanceOf(ReplicaException.class));
        assertThat(refusal.getMessage(), containsString("ahead"));
        assertThat(await(fine), is(OptionalLong.empty()));
        assertThat(await(same), is(OptionalLong.empty()));
        assertThat(peer.seen(), contains("writes 1", "writes 4"));
        assertThat(engine.get(utf8("b")), is(Optional.empty()));
        assertThat(engine.get(utf8("c")), is(Optional.of(Record.value(11, utf8("y")))));
    }

    @Test
    void aFullBatchLeavesWithoutWaitingAndARecordTooLargeForABatchTravelsAlone() throws Exception {
        PeerWriteBatcher batcher = new PeerWriteBatcher(servePeer(), client, 1);
        CompletableFuture<OptionalLong> first = batcher.write(utf8("first"), Record.value(1, utf8("v")));
        peer.awaitSeen(1);
        List<CompletableFuture<OptionalLong>> full = new ArrayList<>();
        for (int i = 0; i < WriteBatchCodec.RECORDS_MAX; i++) {
            full.add(batcher.write(utf8("k" + i), Record.value(2, utf8("v"))));
        }
        assertThat(batcher.queuedForTests(), is(0));
        for (CompletableFuture<OptionalLong> write : full) {
            assertThat(await(write), is(OptionalLong.empty())); // answered while the first batch still waits
        }
        byte[] large = new byte[ReplicaClient.BATCH_BODY_BYTES_DEFAULT];
        assertThat(await(batcher.write(utf8("large"), Record.value(3, large))), is(OptionalLong.empty()));
        assertThat(first.isDone(), is(false));
        assertThat("the large one alone, in a batch of its own", peer.seen(),
                contains("writes 1", "writes " + WriteBatchCodec.RECORDS_MAX, "writes 1"));

        peer.open();
        assertThat(await(first), is(OptionalLong.empty()));
        assertThat(engine.get(utf8("large")).orElseThrow().value().length, is(large.length));
    }

    /**
     * A peer with a small body limit: writes that queue meanwhile leave in batches within it, and a
     * write whose value is exactly that limit (as the public API takes) goes alone at once, in a
     * batch of its own that the peer's server takes ({@link InternalProtocol#ONE_WRITE_ENVELOPE_BYTES}
     * beyond the limit). Before, the batches grew to 512 KiB whatever the peer's limit and it
     * refused them all (413).
     */
    @Test
    void batchesStayWithinThePeersBodyLimitAndAValueAtTheLimitGoesAlone() throws Exception {
        int bodyMax = 64 * 1024;
        ClusterNode node = servePeer(bodyMax);
        ReplicaClient limited = new ReplicaClient(http, Duration.ofSeconds(5), TestAuth.auth(),
                new TopologyWatch(TestAuth.TOPOLOGY), bodyMax);
        PeerWriteBatcher batcher = new PeerWriteBatcher(node, limited, 1);
        CompletableFuture<OptionalLong> first = batcher.write(utf8("first"), Record.value(1, utf8("v")));
        peer.awaitSeen(1);
        List<CompletableFuture<OptionalLong>> queued = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            queued.add(batcher.write(utf8("k" + i), Record.value(2, new byte[20_000])));
        }
        CompletableFuture<OptionalLong> atTheLimit = batcher.write(utf8("limit"), Record.value(3, new byte[bodyMax]));
        assertThat("not behind the batch in flight", await(atTheLimit), is(OptionalLong.empty()));
        assertThat("stored while the first batch is still held", engine.get(utf8("limit")).isPresent(), is(true));
        peer.open();

        assertThat(await(first), is(OptionalLong.empty()));
        for (CompletableFuture<OptionalLong> write : queued) {
            assertThat(await(write), is(OptionalLong.empty()));
        }
        assertThat(peer.batched(InternalProtocol.WRITES_PATH), is(12));
        assertThat(engine.get(utf8("limit")).orElseThrow().value().length, is(bodyMax));
    }

    @Test
    void aBatchThatFailsFailsEveryWriteInItAndTheNextBatchStillLeaves() throws Exception {
        ClusterNode node = servePeer();
        ReplicaClient impostor = new ReplicaClient(http, Duration.ofSeconds(5),
                TestAuth.auth(ClusterSecret.of("a guessed secret of some length"), TestAuth.TOPOLOGY), new TopologyWatch(TestAuth.TOPOLOGY));
        PeerWriteBatcher batcher = new PeerWriteBatcher(node, impostor, 1);
        peer.open();
        List<CompletableFuture<OptionalLong>> writes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            writes.add(batcher.write(utf8("k" + i), Record.value(5, utf8("v"))));
        }
        for (CompletableFuture<OptionalLong> write : writes) {
            Throwable cause = failure(write);
            assertThat(cause, instanceOf(ReplicaException.class));
            assertThat(cause.getMessage(), containsString("status 403"));
        }
        assertThat(batcher.queuedForTests(), is(0));
        assertThat(engine.get(utf8("k0")), is(Optional.empty()));
    }

    @Test
    void manyWritersAtOnceEachGetTheirAnswerAndEveryWriteIsStored() throws Exception {
        PeerWriteBatcher batcher = new PeerWriteBatcher(servePeer(), client, 1);
        peer.open();
        int threads = 8;
        int writesPerThread = 300;
        List<CompletableFuture<OptionalLong>> writes = new CopyOnWriteArrayList<>();
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            writers.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < writesPerThread; i++) {
                    writes.add(batcher.write(utf8("t" + thread + "-" + i), Record.value(1 + i, utf8("v" + i))));
                }
            }));
        }
        for (Thread writer : writers) {
            writer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        }
        assertThat(writes.size(), is(threads * writesPerThread));
        for (CompletableFuture<OptionalLong> write : writes) {
            assertThat(await(write), is(OptionalLong.empty()));
        }
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < writesPerThread; i++) {
                assertThat(engine.get(utf8("t" + t + "-" + i)), is(Optional.of(Record.value(1 + i, utf8("v" + i)))));
            }
        }
        assertThat(peer.batched(InternalProtocol.WRITES_PATH), is(threads * writesPerThread));
        assertThat(batcher.queuedForTests(), is(0));
    }

    /**
     * A batch says the oldest epoch its writes were routed at (the coordinator's view's, or this
     * node's when each was queued), not this node's epoch when the batch leaves: the peer, if it
     * knows a newer one, must tell that the batch was routed by the owners before
     * ({@link Cleanup#storedFrom}).
     */
    @Test
    void aBatchCarriesTheEpochItsOldestWriteWasRoutedAt() throws Exception {
        java.util.concurrent.atomic.AtomicLong epoch = new java.util.concurrent.atomic.AtomicLong(5);
        ReplicaClient stamping = TestAuth.client(http, Duration.ofSeconds(5), epoch);
        PeerWriteBatcher batcher = new PeerWriteBatcher(servePeer(), stamping, 1);
        CompletableFuture<OptionalLong> first = batcher.write(utf8("k0"), Record.value(10, utf8("v0")));
        peer.awaitSeen(1);
        epoch.set(6);
        CompletableFuture<OptionalLong> second = batcher.write(utf8("k1"), Record.value(11, utf8("v1")));
        epoch.set(7);
        CompletableFuture<OptionalLong> third = batcher.write(utf8("k2"), Record.value(12, utf8("v2")));
        CompletableFuture<OptionalLong> repair = batcher.write(utf8("k3"), Record.value(13, utf8("v3")), 4);

        peer.open();
        for (CompletableFuture<OptionalLong> write : List.of(first, second, third, repair)) {
            assertThat(await(write), is(OptionalLong.empty()));
        }
        assertThat(peer.seen(), contains("writes 1", "writes 3"));
        assertThat("a write routed by an older view than the node's of now (a read repair after a change) counts as that one",
                peer.writeEpochs(), contains("5", "4"));
    }

    @Test
    void refusesANonPositiveNumberOfBatchesInFlight() {
        ClusterNode node = ClusterNode.parse("http://127.0.0.1:1");
        assertThrows(IllegalArgumentException.class, () -> new PeerWriteBatcher(node, client, 0));
    }

    private static Throwable failure(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT_SECONDS, TimeUnit.SECONDS));
        Throwable cause = e.getCause();
        return cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null ? cause.getCause() : cause;
    }
}
