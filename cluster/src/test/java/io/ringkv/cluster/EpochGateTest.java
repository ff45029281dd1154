package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The receiver's decision on a sender's metadata epoch: answered at once when this node knows the
 * epoch, after a catch-up when it is behind, refused when it cannot catch up (503) or the epoch is
 * malformed or above the leader's (400). The leader's read is a future the test completes.
 */
class EpochGateTest {

    private static final long WAIT_SECONDS = 10;

    private final KnownMetadata known = new KnownMetadata();
    private final MetadataCatchUp catchUp = new MetadataCatchUp(known);
    private CompletableFuture<ClusterMetadata> leaderRead = new CompletableFuture<>();
    private int reads;

    EpochGateTest() {
        catchUp.attach(() -> {
            reads++;
            return leaderRead;
        });
        known.offer(metadata(3));
    }

    @Test
    void aRequestWithoutAnEpochOrAtOrBelowThisNodesIsAnsweredAtOnce() {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        for (Optional<String> field : List.of(Optional.<String>empty(), Optional.of("1"), Optional.of("3"))) {
            CompletableFuture<Optional<Response>> admitted = gate.admit(field, true);
            assertThat(field.toString(), admitted.isDone(), is(true));
            assertThat(admitted.join(), is(Optional.empty()));
        }
        assertThat("no catch-up for a node that is not ahead", reads, is(0));
    }

    @Test
    void aMalformedEpochIs400AtOnceAndCounted() {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        for (String malformed : List.of("-1", "+4", "", "4 ", "four", "0x4", "1234567890123456789", "٣")) {
            CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of(malformed), false);
            assertThat(malformed, admitted.isDone(), is(true));
            assertThat(malformed, admitted.join().orElseThrow().status(), is(400));
        }
        assertThat(gate.refusals().get(EpochGate.Refusal.MALFORMED), is(8L));
        assertThat(reads, is(0));
        assertThat(known.waiting(), is(0));
    }

    @Test
    void aSenderAheadIsAnsweredOnceTheLeadersReadBringsThisNodeToItsEpoch() throws Exception {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of("5"), true);
        assertThat("waits while this node is behind", admitted.isDone(), is(false));
        assertThat(reads, is(1));
        leaderRead.complete(metadata(6));
        assertThat(admitted.get(WAIT_SECONDS, TimeUnit.SECONDS), is(Optional.empty()));
        assertThat(known.epoch(), is(6L));
        assertThat(gate.caughtUp(), is(1L));
        assertThat(known.waiting(), is(0));
    }

    @Test
    void aSenderAheadIsAnsweredOnceThisNodesReplicaAppliesItsEpoch() throws Exception {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of("4"), true);
        known.offer(metadata(4)); // the state machine applied it before the leader's read returned
        assertThat(admitted.get(WAIT_SECONDS, TimeUnit.SECONDS), is(Optional.empty()));
        assertThat(gate.caughtUp(), is(1L));
    }

    @Test
    void anEpochAboveTheLeadersIs400() throws Exception {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of("10"), true);
        leaderRead.complete(metadata(4));
        Response refusal = admitted.get(WAIT_SECONDS, TimeUnit.SECONDS).orElseThrow();
        assertThat(refusal.status(), is(400));
        assertThat(text(refusal), containsString("10 is above the cluster's: the metadata leader is at epoch 4"));
        assertThat(gate.refusals().get(EpochGate.Refusal.BEYOND_CLUSTER), is(1L));
        assertThat("the leader's epoch is taken all the same", known.epoch(), is(4L));
        assertThat(known.waiting(), is(0));
    }

    /** Far above any real cluster: refused at once, whatever the request, with no read and no waiter. */
    @Test
    void anAbsurdEpochIs400AtOnce() {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        for (boolean dependsOnMetadata : new boolean[] {true, false}) {
            CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of("999999999999999999"), dependsOnMetadata);
            assertThat(admitted.isDone(), is(true));
            assertThat(admitted.join().orElseThrow().status(), is(400));
            assertThat(text(admitted.join().orElseThrow()), containsString("epochs above this node's 3"));
        }
        assertThat(reads, is(0));
        assertThat(known.waiting(), is(0));
        assertThat(gate.refusals().get(EpochGate.Refusal.BEYOND_CLUSTER), is(2L));
    }

    /** A replica read or write from a node ahead is answered at once; this node catches up meanwhile. */
    @Test
    void aRequestThatDoesNotDependOnTheMetadataIsAnsweredAtOnceAndStartsACatchUp() {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of("5"), false);
        assertThat(admitted.isDone(), is(true));
        assertThat(admitted.join(), is(Optional.empty()));
        assertThat(reads, is(1));
        assertThat(gate.catchUpsFromRequests(), is(1L));
        leaderRead.complete(metadata(5));
        assertThat(known.epoch(), is(5L));
    }

    /** A node that knows no metadata yet (its group still starting, or wiped) answers even a comparison at once. */
    @Test
    void aNodeThatKnowsNoMetadataYetAnswersAtOnceAndCatchesUp() {
        MetadataCatchUp starting = new MetadataCatchUp(new KnownMetadata());
        EpochGate gate = new EpochGate(starting, Duration.ofSeconds(2));
        CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of("2"), true);
        assertThat(admitted.isDone(), is(true));
        assertThat(admitted.join(), is(Optional.empty()));
        assertThat(starting.fromRequests(), is(1L));
    }

    /** No leader answers (the read fails, or never returns) and nothing is applied: 503 at the bound, naming both epochs. */
    @Test
    void aNodeThatCannotCatchUpWithinTheBoundAnswers503NamingBothEpochs() throws Exception {
        EpochGate gate = new EpochGate(catchUp, Duration.ofMillis(50));
        leaderRead = CompletableFuture.failedFuture(new java.io.IOException("no leader"));
        CompletableFuture<Optional<Response>> failedRead = gate.admit(Optional.of("7"), true);
        leaderRead = new CompletableFuture<>();
        CompletableFuture<Optional<Response>> silentRead = gate.admit(Optional.of("8"), true);
        for (CompletableFuture<Optional<Response>> admitted : List.of(failedRead, silentRead)) {
            Response refusal = admitted.get(WAIT_SECONDS, TimeUnit.SECONDS).orElseThrow();
            assertThat(refusal.status(), is(503));
            assertThat(text(refusal), containsString("this node knows cluster metadata epoch 3"));
            assertThat(refusal.headers().first("Retry-After"), is(Optional.of("1")));
        }
        assertThat(text(silentRead.join().orElseThrow()), containsString("sent at epoch 8"));
        assertThat(gate.refusals().get(EpochGate.Refusal.BEHIND), is(2L));
        assertThat("no waiter left behind", known.waiting(), is(0));
    }

    @Test
    void whenTheWaitersAreFullAnotherRequestAheadIs503AtOnce() {
        EpochGate gate = new EpochGate(catchUp, Duration.ofSeconds(2));
        for (int i = 0; i < KnownMetadata.WAITERS_MAX; i++) {
            assertThat(known.await(100).isPresent(), is(true));
        }
        CompletableFuture<Optional<Response>> admitted = gate.admit(Optional.of("4"), true);
        assertThat(admitted.isDone(), is(true));
        assertThat(admitted.join().orElseThrow().status(), is(503));
        assertThat(gate.refusals().get(EpochGate.Refusal.BUSY), is(1L));
    }

    @Test
    void theWaitIsBoundedByTwoSecondsAndHalfTheReplicaTimeout() {
        assertThat(EpochGate.waitLimitFor(Duration.ofSeconds(1)), is(Duration.ofMillis(500)));
        assertThat(EpochGate.waitLimitFor(Duration.ofSeconds(30)), is(EpochGate.CATCH_UP_WAIT_MAX));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new EpochGate(catchUp, Duration.ofSeconds(3)));
    }

    static ClusterMetadata metadata(long epoch) {
        return new ClusterMetadata(epoch, 1, List.of());
    }

    private static String text(Response response) {
        return new String(((ResponseBody.Fixed) response.body()).bytes(), StandardCharsets.UTF_8);
    }
}
