package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Peer states from call outcomes: unknown, up on an answer, down after two failures in a row. */
class PeerHealthTest {

    private final ClusterNode peer = ClusterNode.parse("http://127.0.0.1:2");
    private final AtomicLong wall = new AtomicLong(1_000);
    private final PeerHealth health = new PeerHealth(List.of(peer), wall::get);

    @Test
    void unknownUntilHeardFrom() {
        assertThat(state(), is(PeerHealth.State.UNKNOWN));
        assertThat(health.peers().get(0).sinceMillis(), is(1_000L));
    }

    @Test
    void oneFailureIsNotDownTwoInARowAre() {
        health.answered(peer);
        health.onReplicaCall(peer, 1, new ConnectException("refused"));
        assertThat(state(), is(PeerHealth.State.UP));
        wall.set(5_000);
        health.onReplicaCall(peer, 1, new ConnectException("refused"));
        assertThat(state(), is(PeerHealth.State.DOWN));
        assertThat(health.peers().get(0).sinceMillis(), is(5_000L));
        assertThat(health.peers().get(0).lastFailure(), is("java.net.ConnectException: refused"));
    }

    @Test
    void anAnswerBetweenFailuresKeepsItUpAndOneAnswerBringsItBack() {
        health.answered(peer);
        health.failed(peer, "timeout");
        health.answered(peer);
        health.failed(peer, "timeout");
        assertThat(state(), is(PeerHealth.State.UP));
        health.failed(peer, "timeout");
        assertThat(state(), is(PeerHealth.State.DOWN));
        wall.set(9_000);
        health.onReplicaCall(peer, 1, null);
        assertThat(state(), is(PeerHealth.State.UP));
        assertThat(health.peers().get(0).sinceMillis(), is(9_000L));
    }

    @Test
    void listenersHearEveryChangeOfStateAndNothingElse() {
        List<String> changes = new java.util.ArrayList<>();
        health.addListener((node, from, to, why) -> changes.add(node.id() + " " + from + "->" + to + " " + why));
        health.answered(peer);
        health.answered(peer);
        health.failed(peer, "timeout");
        health.failed(peer, "refused");
        health.failed(peer, "refused");
        health.answered(peer);
        assertThat(changes, is(List.of(peer.id() + " UNKNOWN->UP null", peer.id() + " UP->DOWN refused",
                peer.id() + " DOWN->UP null")));
    }

    @Test
    void aFailingListenerDoesNotFailTheCallThatChangedTheState() {
        health.addListener((node, from, to, why) -> {
            throw new IllegalStateException("listener bug");
        });
        health.answered(peer);
        assertThat(state(), is(PeerHealth.State.UP));
    }

    @Test
    void aPeerNotHeardFromIsQuietAndOneJustHeardIsNot() {
        assertThat(health.quietFor(peer, 1_000_000_000L), is(true));
        health.answered(peer);
        assertThat(health.quietFor(peer, 60_000_000_000L), is(false));
    }

    @Test
    void timeoutsAreToldFromOtherFailures() {
        assertThat(ReplicaCallListener.isTimeout(new java.util.concurrent.CompletionException(
                new java.net.http.HttpTimeoutException("request timed out"))), is(true));
        assertThat(ReplicaCallListener.isTimeout(new ConnectException("refused")), is(false));
        assertThat(ReplicaCallListener.isTimeout(new java.net.http.HttpConnectTimeoutException("connect")), is(false));
    }

    private PeerHealth.State state() {
        return health.peers().get(0).state();
    }
}
