package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link PeerReadBatcher} against a real peer over h2c, a {@link GatedPeer} holding its first read batch. */
class PeerReadBatcherTest extends GatedPeerTestBase {

    @Override
    String gatedPath() {
        return InternalProtocol.READS_PATH;
    }

    @Test
    void readsMadeWhileABatchIsUnansweredLeaveTogetherAndEachGetsItsOwnRecord() throws Exception {
        engine.apply(utf8("a"), Record.value(5, utf8("x")));
        engine.apply(utf8("dead"), Record.tombstone(6));
        engine.apply(new byte[] {0, (byte) 0xFF}, Record.value(7, new byte[0]));
        PeerReadBatcher batcher = new PeerReadBatcher(servePeer(), client, 1);
        CompletableFuture<Optional<Record>> first = batcher.read(utf8("a"));
        peer.awaitSeen(1);
        CompletableFuture<Optional<Record>> tombstone = batcher.read(utf8("dead"));
        CompletableFuture<Optional<Record>> absent = batcher.read(utf8("never written"));
        CompletableFuture<Optional<Record>> binary = batcher.read(new byte[] {0, (byte) 0xFF});
        CompletableFuture<Optional<Record>> again = batcher.read(utf8("a"));
        assertThat(batcher.queuedForTests(), is(4));
        assertThat(first.isDone(), is(false));

        peer.open();
        assertThat(await(first), is(Optional.of(Record.value(5, utf8("x")))));
        assertThat(await(tombstone), is(Optional.of(Record.tombstone(6))));
        assertThat(await(absent), is(Optional.empty()));
        assertThat(await(binary), is(Optional.of(Record.value(7, new byte[0]))));
        assertThat(await(again), is(Optional.of(Record.value(5, utf8("x")))));
        assertThat(peer.seen(), contains("reads 1", "reads 4"));
        assertThat(batcher.counts(), is(new PeerBatches.Counts(2, 5)));
    }

    @Test
    void keysBeyondTheAnswersValueBudgetAreReadAloneAndStillAnswered() throws Exception {
        byte[] big = new byte[ReadBatchCodec.ANSWER_VALUE_BYTES / 2 + 1];
        for (int i = 0; i < 4; i++) {
            engine.apply(utf8("big" + i), Record.value(10 + i, big));
        }
        PeerReadBatcher batcher = new PeerReadBatcher(servePeer(), client, 1);
        CompletableFuture<Optional<Record>> first = batcher.read(utf8("small"));
        peer.awaitSeen(1);
        List<CompletableFuture<Optional<Record>>> bigs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            bigs.add(batcher.read(utf8("big" + i)));
        }
        peer.open();
        assertThat(await(first), is(Optional.empty()));
        for (int i = 0; i < 4; i++) {
            assertThat(await(bigs.get(i)).orElseThrow().timestamp(), is(10L + i));
        }
        // Two values fill the answer's budget; the other two keys were deferred and read alone.
        assertThat(peer.seen(), contains("reads 1", "reads 4", "reads 1", "reads 1"));
    }

    @Test
    void aBatchThatFailsFailsEveryReadInIt() throws Exception {
        ClusterNode node = servePeer();
        peer.open();
        ReplicaClient otherCluster = new ReplicaClient(http, Duration.ofSeconds(5), TestAuth.auth(TestAuth.SECRET, "fedcba9876543210"),
                new TopologyWatch("fedcba9876543210"));
        PeerReadBatcher batcher = new PeerReadBatcher(node, otherCluster, 1);
        List<CompletableFuture<Optional<Record>>> reads = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            reads.add(batcher.read(utf8("k" + i)));
        }
        for (CompletableFuture<Optional<Record>> read : reads) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> read.get(WAIT_SECONDS, TimeUnit.SECONDS));
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException ? e.getCause().getCause() : e.getCause();
            assertThat(cause, instanceOf(ReplicaException.class));
            assertThat(cause.getMessage(), containsString("status 409"));
        }
        assertThat(batcher.queuedForTests(), is(0));
    }
}
