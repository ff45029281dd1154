package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;

import io.ringkv.cluster.meta.ClusterMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Catch-up reads through the leader: coalesced to one in flight and one queued, each caller given
 * a read that starts after its call, and what they read taken as the known metadata.
 */
class MetadataCatchUpTest {

    private final KnownMetadata known = new KnownMetadata();
    private final MetadataCatchUp catchUp = new MetadataCatchUp(known);
    private final List<CompletableFuture<ClusterMetadata>> reads = new ArrayList<>();
    private final ClusterNode peer = ClusterNode.parse("http://127.0.0.1:2");

    MetadataCatchUpTest() {
        catchUp.attach(() -> {
            CompletableFuture<ClusterMetadata> read = new CompletableFuture<>();
            reads.add(read);
            return read;
        });
    }

    @Test
    void callersDuringAReadShareOneQueuedReadThatStartsWhenTheFirstEnds() {
        CompletableFuture<ClusterMetadata> first = catchUp.fresh();
        CompletableFuture<ClusterMetadata> second = catchUp.fresh();
        CompletableFuture<ClusterMetadata> third = catchUp.fresh();
        assertThat("the one in flight may predate the later callers' epochs", reads.size(), is(1));
        assertThat(third, sameInstance(second));
        reads.getFirst().complete(EpochGateTest.metadata(2));
        assertThat(first.join().epoch(), is(2L));
        assertThat(known.epoch(), is(2L));
        assertThat("the queued read started when the first ended", reads.size(), is(2));
        assertThat(second.isDone(), is(false));
        reads.get(1).complete(EpochGateTest.metadata(3));
        assertThat(second.join().epoch(), is(3L));
        assertThat(known.epoch(), is(3L));
        catchUp.fresh();
        assertThat("idle again: a new read", reads.size(), is(3));
    }

    @Test
    void aFailedReadLetsTheNextOneStart() {
        CompletableFuture<ClusterMetadata> first = catchUp.fresh();
        CompletableFuture<ClusterMetadata> queued = catchUp.fresh();
        reads.getFirst().completeExceptionally(new java.io.IOException("no leader"));
        assertThat(first.isCompletedExceptionally(), is(true));
        reads.get(1).complete(EpochGateTest.metadata(4));
        assertThat(queued.join().epoch(), is(4L));
    }

    @Test
    void aPeerAheadStartsACatchUpAndOneAtOrBelowDoesNot() {
        known.offer(EpochGateTest.metadata(2));
        catchUp.heard(peer, 2);
        catchUp.heard(peer, 1);
        assertThat(reads.size(), is(0));
        catchUp.heard(peer, 3);
        catchUp.heard(peer, 3); // queued behind the first
        catchUp.heard(peer, 3); // shares the queued one
        assertThat(reads.size(), is(1));
        assertThat(catchUp.fromAnswers(), is(2L));
        reads.getFirst().complete(EpochGateTest.metadata(3));
        reads.get(1).complete(EpochGateTest.metadata(3));
        assertThat(known.epoch(), is(3L));
    }

    @Test
    void aReadAskedForBeforeTheGroupRunsStartsWhenItIsAttached() {
        MetadataCatchUp starting = new MetadataCatchUp(new KnownMetadata());
        CompletableFuture<ClusterMetadata> early = starting.fresh();
        CompletableFuture<ClusterMetadata> queued = starting.fresh();
        assertThat(early.isDone(), is(false));
        starting.attach(() -> CompletableFuture.completedFuture(EpochGateTest.metadata(5)));
        assertThat(early.join().epoch(), is(5L));
        assertThat(queued.join().epoch(), is(5L));
        assertThat(starting.known().epoch(), is(5L));
    }
}
