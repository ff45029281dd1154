package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The newest metadata a node knows: only ever newer, heard once each in order, waited for. */
class KnownMetadataTest {

    private final KnownMetadata known = new KnownMetadata();

    @Test
    void takesOnlyNewerEpochsAndTellsTheListenersOfEachOnceInOrder() {
        List<Long> heard = new ArrayList<>();
        known.listen(metadata -> heard.add(metadata.epoch()));
        assertThat(known.offer(EpochGateTest.metadata(2)), is(true));
        assertThat("an older epoch (the replica applying what a read brought already)",
                known.offer(EpochGateTest.metadata(1)), is(false));
        assertThat(known.offer(EpochGateTest.metadata(2)), is(false));
        assertThat(known.offer(EpochGateTest.metadata(5)), is(true));
        assertThat(heard, contains(2L, 5L));
        assertThat(known.epoch(), is(5L));
    }

    @Test
    void waitersCompleteWhenTheirEpochIsKnownAndACancelledOneIsForgotten() {
        known.offer(EpochGateTest.metadata(1));
        assertThat(known.await(1).orElseThrow().isDone(), is(true));
        CompletableFuture<Void> two = known.await(2).orElseThrow();
        CompletableFuture<Void> four = known.await(4).orElseThrow();
        CompletableFuture<Void> cancelled = known.await(4).orElseThrow();
        assertThat(known.waiting(), is(3));
        cancelled.cancel(false);
        assertThat(known.waiting(), is(2));
        known.offer(EpochGateTest.metadata(3));
        assertThat(two.isDone(), is(true));
        assertThat(four.isDone(), is(false));
        known.offer(EpochGateTest.metadata(4));
        assertThat(four.isDone(), is(true));
        assertThat(known.waiting(), is(0));
    }

    @Test
    void refusesAWaiterBeyondTheBound() {
        for (int i = 0; i < KnownMetadata.WAITERS_MAX; i++) {
            assertThat(known.await(1).isPresent(), is(true));
        }
        assertThat(known.await(1).isPresent(), is(false));
        known.offer(EpochGateTest.metadata(1));
        assertThat(known.waiting(), is(0));
        assertThat(known.await(2).isPresent(), is(true));
    }
}
