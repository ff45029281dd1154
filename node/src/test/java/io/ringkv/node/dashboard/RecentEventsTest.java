package io.ringkv.node.dashboard;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.PeerHealth;
import io.ringkv.http.Headers;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The bounded buffer of a node's latest errors, what its listeners record, and its JSON both ways. */
class RecentEventsTest {

    private final AtomicLong wall = new AtomicLong(1_000);
    private final RecentEvents events = new RecentEvents(wall::get);
    private final ClusterNode peer = ClusterNode.parse("http://127.0.0.1:2");

    @Test
    void aRepeatIsCountedAndMovesToTheFront() {
        events.record("a", "x", "one");
        wall.set(2_000);
        events.record("b", "x", "two");
        wall.set(3_000);
        events.record("a", "x", "one");
        assertThat(events.latest(), contains(new RecentEvents.Event(3_000, "a", "x", "one", 2),
                new RecentEvents.Event(2_000, "b", "x", "two", 1)));
    }

    @Test
    void keepsTheLatestDistinctEventsOnly() {
        for (int i = 0; i < RecentEvents.CAPACITY + 10; i++) {
            wall.set(i);
            events.record("kind", "subject " + i, "detail");
        }
        List<RecentEvents.Event> latest = events.latest();
        assertThat(latest.size(), is(RecentEvents.CAPACITY));
        assertThat(latest.getFirst().subject(), is("subject " + (RecentEvents.CAPACITY + 9)));
        assertThat(latest.getLast().subject(), is("subject 10"));
    }

    @Test
    void longDetailsAreCut() {
        events.record("kind", "subject", "x".repeat(5_000));
        assertThat(events.latest().getFirst().detail().length(), is(RecentEvents.DETAIL_CHARS_MAX + 1));
    }

    @Test
    void serverErrorsAreFiveHundredsButNotTheStatusEndpointsStartingOrStopping() {
        events.serverErrors().onResponse(request("GET", "/v0/entity"), 200, 1);
        events.serverErrors().onResponse(request("GET", "/v0/entity"), 404, 1);
        events.serverErrors().onResponse(request("GET", "/v0/status"), 503, 1);
        assertThat(events.latest(), is(empty()));
        events.serverErrors().onResponse(request("PUT", "/v0/entity"), 504, 1);
        events.serverErrors().onResponse(request("PUT", "/v0/entity"), 504, 1);
        assertThat(events.latest(), contains(new RecentEvents.Event(1_000, RecentEvents.SERVER_ERROR, "PUT /v0/entity", "status 504", 2)));
    }

    @Test
    void failedReplicaCallsAreRecordedWithTheirCauseAndAnsweredOnesAreNot() {
        events.replicaCallFailures().onReplicaCall(peer, 1, null);
        assertThat(events.latest(), is(empty()));
        events.replicaCallFailures().onReplicaCall(peer, 1, new CompletionException(new ConnectException("Connection refused")));
        assertThat(events.latest(), contains(new RecentEvents.Event(1_000, RecentEvents.REPLICA_CALL_FAILED, peer.id(),
                "ConnectException: Connection refused", 1)));
    }

    @Test
    void peersGoingDownAndComingBackAreRecordedButNotTheirFirstAnswer() {
        PeerHealth.StateListener changes = events.peerChanges();
        changes.onStateChange(peer, PeerHealth.State.UNKNOWN, PeerHealth.State.UP, null);
        assertThat(events.latest(), is(empty()));
        changes.onStateChange(peer, PeerHealth.State.UP, PeerHealth.State.DOWN,
                "java.util.concurrent.CompletionException: java.net.ConnectException: refused");
        wall.set(2_000);
        changes.onStateChange(peer, PeerHealth.State.DOWN, PeerHealth.State.UP, null);
        assertThat(events.latest(), contains(new RecentEvents.Event(2_000, RecentEvents.PEER_UP, peer.id(), "answers again", 1),
                new RecentEvents.Event(1_000, RecentEvents.PEER_DOWN, peer.id(), "java.net.ConnectException: refused", 1)));
    }

    @Test
    void theJsonReadsBackWhateverTheTextHolds() {
        events.record("kind", "GET /v0/\"quoted\"\\path", "line\nbreak\ttab \u0001 é ☃");
        events.record("other", "s", "");
        List<RecentEvents.Event> written = events.latest();
        assertThat(RecentEvents.parse(RecentEvents.toJson(written)), is(written));
        assertThat(RecentEvents.toJson(List.of()), is("[]"));
    }

    @Test
    void whatIsNotOurShapeIsSkippedNotFailed() {
        assertThat(RecentEvents.parse("not json"), is(empty()));
        assertThat(RecentEvents.parse("[{\"at\":1,\"kind\":\"k\",\"subject\":\"s\",\"detail\":\"bad \\uZZZZ\",\"count\":1},"
                + "{\"at\":2,\"kind\":\"k\",\"subject\":\"s\",\"detail\":\"good\",\"count\":3}]"),
                contains(new RecentEvents.Event(2, "k", "s", "good", 3)));
    }

    /** The listeners are on every request's path: when nothing failed they must cost no allocation. */
    @Test
    void listenersAllocateNothingWhenNothingFailed() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(threads.isThreadAllocatedMemorySupported()
                && threads.isThreadAllocatedMemoryEnabled(), "this JVM does not count allocations per thread");
        var served = events.serverErrors();
        var calls = events.replicaCallFailures();
        Request get = request("GET", "/v0/entity");
        Request starting = request("GET", "/v0/status");
        Runnable fine = () -> {
            served.onResponse(get, 200, 1);
            served.onResponse(starting, 503, 1);
            calls.onReplicaCall(peer, 1, null);
        };
        for (int i = 0; i < 20_000; i++) {
            fine.run();
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            fine.run();
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated + " bytes for 100,000 rounds", allocated < 16 * 1024, is(true));
        assertThat(events.latest(), is(empty()));
    }

    private static Request request(String method, String path) {
        return new Request(method, path, "id=secret-key", new Headers(), new byte[0], null, Protocol.HTTP_1_1);
    }
}
