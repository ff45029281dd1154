package io.ringkv.cluster.peer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link H2PeerTransport} against peers that refuse or abuse it ({@link ScriptedPeer}): what the
 * peer did not process goes again on a new connection, a bounded number of times; what no client
 * should take fails the request instead of hanging it or holding its memory.
 */
class H2PeerTransportHostilePeerTest {
    private static final long WAIT_SECONDS = 20;

    private final ExecutorService blocking = Executors.newFixedThreadPool(2);
    private final H2PeerTransport transport = new H2PeerTransport(null, blocking, null, Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofSeconds(2), 1 << 20);

    @AfterEach
    void close() {
        transport.close();
        blocking.shutdownNow();
    }

    @Test
    void aRequestAGoAwayLeftUnprocessedGoesAgainOnANewConnection() throws Exception {
        try (ScriptedPeer peer = new ScriptedPeer(connection -> connection == 0 ? ScriptedPeer.Script.GOAWAY_AT_ONCE
                : ScriptedPeer.Script.ANSWER)) {
            PeerAnswer answer = send(peer.origin());
            assertThat(new String(answer.body(), StandardCharsets.US_ASCII), is("ok"));
            assertThat(peer.accepted(), is(2));
        }
    }

    @Test
    void aRefusedStreamGoesAgainOnAnotherStream() throws Exception {
        // RFC 9113 §8.7: a refused stream was not processed; the connection itself stays good.
        try (ScriptedPeer peer = new ScriptedPeer(connection -> ScriptedPeer.Script.REFUSE_FIRST_STREAM)) {
            PeerAnswer answer = send(peer.origin());
            assertThat(new String(answer.body(), StandardCharsets.US_ASCII), is("ok"));
            assertThat(peer.accepted(), is(1));
        }
    }

    @Test
    void aPeerThatRefusesEveryStreamFailsTheRequestAfterThreeTries() throws Exception {
        try (ScriptedPeer peer = new ScriptedPeer(connection -> ScriptedPeer.Script.REFUSE_EVERY_STREAM)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> send(peer.origin()));
            assertThat(e.getCause(), instanceOf(IOException.class));
            assertThat(e.getCause().getMessage(), containsString("refused GET / to " + peer.origin() + " 3 times"));
        }
    }

    @Test
    void anAnswerWithAFieldPastTheHeaderListBoundFailsTheRequest() throws Exception {
        try (ScriptedPeer peer = new ScriptedPeer(connection -> ScriptedPeer.Script.HUGE_FIELD)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> send(peer.origin()));
            assertThat(e.getCause(), instanceOf(IOException.class));
        }
    }

    @Test
    void anAnswerPastTheBoundWhoseLastFrameEndsItFailsTheRequestAndNotTheConnection() throws Exception {
        // No content-length: the bound is passed by DATA, on the frame that also ends the stream,
        // which the engine has closed by the time the transport gives the answer up.
        try (ScriptedPeer peer = new ScriptedPeer(connection -> ScriptedPeer.Script.LARGE_WITHOUT_LENGTH);
             H2PeerTransport bounded = new H2PeerTransport(null, blocking, null, Duration.ofMillis(500),
                     Duration.ofSeconds(1), Duration.ofSeconds(2), 100_000)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> bounded.send(new PeerRequest(peer.origin(), "GET",
                    "/large", Map.of(), new byte[0], Duration.ofSeconds(10))).get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertThat(e.getCause().getMessage(), containsString("more than 100000 bytes"));
            PeerAnswer next = bounded.send(new PeerRequest(peer.origin(), "GET", "/small", Map.of(), new byte[0],
                    Duration.ofSeconds(10))).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(new String(next.body(), StandardCharsets.US_ASCII), is("ok"));
            assertThat(peer.accepted(), is(1));
        }
    }

    @Test
    void aPeerThatNeverReadsFailsTheRequestByItsTimeoutAndLosesTheConnection() throws Exception {
        // A 3 MiB body to a peer that stopped reading: what cannot be written waits (bounded by
        // the peer's windows), the request ends at its timeout, and the connection, whose PING
        // goes unanswered, is given up, so that the next request opens a new one.
        try (ScriptedPeer peer = new ScriptedPeer(connection -> ScriptedPeer.Script.DEAF)) {
            PeerRequest upload = new PeerRequest(peer.origin(), "PUT", "/", Map.of(), new byte[3 << 20], Duration.ofSeconds(1));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> transport.send(upload).get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertThat(e.getCause(), instanceOf(java.net.http.HttpTimeoutException.class));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (transport.stats().orElseThrow().routes().stream().mapToInt(r -> r.connections()).sum() > 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(transport.stats().orElseThrow().routes().stream().mapToInt(r -> r.connections()).sum(), is(0));
        }
    }

    private PeerAnswer send(String origin) throws Exception {
        return transport.send(new PeerRequest(origin, "GET", "/", Map.of(), new byte[0], Duration.ofSeconds(10)))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
