package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.PingFrame;
import io.ringkv.http.h2.RstStreamFrame;
import io.ringkv.http.h2.WindowUpdateFrame;
import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP/2 attacks of issue 32 against a node process started as {@code ./ringkv serve} starts
 * one, each from one hand-driven cleartext connection ({@link RawH2}): the node must end the
 * abusive connection (GOAWAY, or the socket closed) and stay up, while a well-behaved HTTP/1.1
 * client ({@link Bystander}) gets every answer, during the attack and after it.
 *
 * <p>Short {@code --idle-timeout} and {@code --header-timeout} keep the timeout attacks fast;
 * every wait for the node's reaction is bounded (a deadline, not a measured time), so a node
 * that never reacts fails the test instead of hanging it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class Http2AbuseIT {
    private static final Duration IDLE_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(2);
    /** How long the node gets to end an abusive connection: several times the timeout that applies. */
    private static final Duration REACTION = Duration.ofSeconds(15);
    /** The body rate is judged over 10 s windows (ServerConfig.BODY_RATE_WINDOW): two windows and a margin. */
    private static final Duration BODY_RATE_REACTION = Duration.ofSeconds(25);

    @TempDir
    Path root;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private NodeProcess node;
    private int port;

    @BeforeEach
    void startNode() throws Exception {
        port = LocalPorts.free(1).getFirst();
        node = new NodeProcess("h2-abuse", List.of("--port", Integer.toString(port), "--data", root.resolve("d").toString(),
                "--warm-up", "PT0S", "--idle-timeout", IDLE_TIMEOUT.toString(), "--header-timeout", HEADER_TIMEOUT.toString()),
                new PrintStream(log, true, StandardCharsets.UTF_8)).start();
        assertThat(node.awaitReady("http://127.0.0.1:" + port, Duration.ofSeconds(60)), is(true));
    }

    @AfterEach
    void stopNode() {
        node.stop(Duration.ofSeconds(10));
    }

    /**
     * Attack 1a: the preface, then WINDOW_UPDATE with increment 0 on idle stream ids, each of
     * which the node must answer with RST_STREAM, and never a byte read. Unchecked, the node's
     * queue of unsent resets grows until the heap is gone.
     */
    @Test
    void aWindowUpdateZeroFloodThatNeverReadsIsCutOff() throws Exception {
        floodWithoutReading(id -> new WindowUpdateFrame(id, 0));
    }

    /** Attack 1b: a PING flood that never reads its PING ACKs. */
    @Test
    void aPingFloodThatNeverReadsIsCutOff() throws Exception {
        floodWithoutReading(id -> new PingFrame(id, false));
    }

    /**
     * Writes frames as fast as the node takes them, never reading, until the node ends the
     * connection (a write fails) or {@link #REACTION} passes. With a 4 KiB receive buffer, what
     * the node answers stays in its own queue.
     */
    private void floodWithoutReading(IntFunction<Frame> frame) throws Exception {
        try (Bystander calm = new Bystander(port); RawH2 attacker = RawH2.open(port, 4096)) {
            List<Frame> frames = new ArrayList<>();
            for (int i = 0; i < 4096; i++) {
                frames.add(frame.apply(2 * i + 1)); // odd ids: streams a client may open, all idle
            }
            byte[] batch = attacker.encode(frames.toArray(Frame[]::new));
            AtomicLong sent = new AtomicLong();
            CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> {
                try {
                    while (true) {
                        attacker.write(batch);
                        sent.addAndGet(batch.length);
                    }
                } catch (IOException endedByTheNode) {
                    // what the test waits for
                }
            });
            try {
                flood.get(REACTION.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                String heap = heapUsed();
                attacker.close(); // ends a blocked write
                throw new AssertionError("the node neither closed the flooding connection nor died within " + REACTION
                        + " (" + sent.get() / 1024 + " KiB sent; node heap used " + heap + "); bystander " + calm);
            }
            assertThat("the node survives the flood (" + sent.get() / 1024 + " KiB sent); its last lines: " + tail(),
                    node.isAlive(), is(true));
            assertNodeServedTheBystander(calm);
        }
    }

    /** Attack 2a: the preface and SETTINGS, then silence. The idle timeout must close it. */
    @Test
    void aConnectionThatSaysNothingAfterItsPrefaceIsClosed() throws Exception {
        try (Bystander calm = new Bystander(port); RawH2 attacker = RawH2.open(port, 0)) {
            RawH2.Ending ending = attacker.awaitClose(REACTION);
            assertThat("with --idle-timeout " + IDLE_TIMEOUT + ": " + ending, ending.closed(), is(true));
            assertNodeServedTheBystander(calm);
        }
    }

    /**
     * Attack 2b: a HEADERS frame without END_HEADERS, then silence. The half-received block holds
     * decoder state and the connection (no other frame may come until its CONTINUATION): the
     * header timeout must end it.
     */
    @Test
    void aHeaderBlockThatNeverEndsIsCutOff() throws Exception {
        try (Bystander calm = new Bystander(port); RawH2 attacker = RawH2.open(port, 0)) {
            attacker.send(new HeadersFrame(1, attacker.request("GET", "/v0/entity?id=bystander"), true, false));
            RawH2.Ending ending = attacker.awaitClose(REACTION);
            boolean streamReset = ending.seen().stream().anyMatch(f -> f.startsWith("RST_STREAM(1)"));
            assertThat("with --header-timeout " + HEADER_TIMEOUT + ": " + ending, ending.closed() || streamReset, is(true));
            assertNodeServedTheBystander(calm);
        }
    }

    /**
     * Attack 3: a PUT that declares 1 MiB, sends 4 KiB of it and then nothing. The body rate
     * (1 KiB/s over every 10 s) must end the stream (408 or RST_STREAM) or the connection.
     */
    @Test
    void aBodyThatStopsArrivingIsCutOff() throws Exception {
        try (Bystander calm = new Bystander(port); RawH2 attacker = RawH2.open(port, 0)) {
            attacker.send(new HeadersFrame(1, attacker.request("PUT", "/v0/entity?id=slow", "content-length",
                    Integer.toString(1 << 20)), false, true), new DataFrame(1, ByteBuffer.allocate(4096), false));
            String outcome = streamOutcome(attacker, 1, BODY_RATE_REACTION);
            assertThat("the stalled stream, " + BODY_RATE_REACTION + " at most after its last byte",
                    outcome.equals("HEADERS :status=408") || outcome.startsWith("RST_STREAM") || outcome.equals("closed"),
                    is(true));
            assertNodeServedTheBystander(calm);
        }
    }

    /**
     * Attack 4, "MadeYouReset" (CVE-2025-8671): stream after stream of a request followed by
     * WINDOW_UPDATE(0) on it, which the node must reset itself. Resets the node makes because of
     * the client count against the same rapid-reset budget as the client's own: the connection
     * gets GOAWAY(ENHANCE_YOUR_CALM), and the bystander no 503.
     */
    @Test
    void streamsTheNodeMustResetCountAgainstTheResetBudget() throws Exception {
        try (Bystander calm = new Bystander(port); RawH2 attacker = RawH2.open(port, 0)) {
            // Read all along in another thread, so back-pressure on the node's answers is not what ends it.
            CompletableFuture<RawH2.Ending> ending = CompletableFuture.supplyAsync(() -> {
                try {
                    return attacker.awaitClose(REACTION);
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            int streams = 0;
            try {
                for (int id = 1; streams < 20_000 && !ending.isDone(); id += 2, streams++) {
                    attacker.send(new HeadersFrame(id, attacker.request("GET", "/v0/entity?id=bystander"), true, true),
                            new WindowUpdateFrame(id, 0));
                }
            } catch (IOException endedByTheNode) {
                // the node closed the connection while streams were still being sent: what the test wants
            }
            RawH2.Ending seen = ending.get(REACTION.toSeconds() + 5, TimeUnit.SECONDS);
            assertThat("after " + streams + " streams: " + seen, seen.closed(), is(true));
            assertThat("after " + streams + " streams: " + seen + "; the node's last lines: " + tail(),
                    seen.goAway() == null ? null : seen.goAway().error(), equalTo(ErrorCode.ENHANCE_YOUR_CALM));
            assertNodeServedTheBystander(calm);
        }
    }

    /** The first HEADERS (as its :status) or RST_STREAM on {@code streamId}, or "closed", or "nothing" by the deadline. */
    private static String streamOutcome(RawH2 h2, int streamId, Duration within) throws IOException {
        long end = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < end) {
            Frame frame;
            try {
                frame = h2.next(Duration.ofNanos(Math.max(1, end - System.nanoTime())));
            } catch (SocketTimeoutException e) {
                break;
            }
            if (frame == null) {
                return "closed";
            }
            if (frame.streamId() != streamId) {
                continue;
            }
            if (frame instanceof HeadersFrame) {
                return "HEADERS :status=" + h2.lastStatus();
            }
            if (frame instanceof RstStreamFrame r) {
                return "RST_STREAM " + ErrorCode.of(r.errorCode());
            }
        }
        throw new AssertionError("nothing on stream " + streamId + " within " + within);
    }

    /** The node is up, the bystander saw no failure, and it is still answered after the attack. */
    private void assertNodeServedTheBystander(Bystander calm) throws InterruptedException {
        assertThat("the node is up; its last lines: " + tail(), node.isAlive(), is(true));
        assertThat("the bystander is answered after the attack: " + calm, calm.awaitMoreAnswers(5, REACTION), is(true));
        assertThat("the bystander's failures (" + calm.answers() + " answers)", calm.failures(), is(empty()));
    }

    /** The node's heap in use now, from its /metrics, for failure messages. */
    private String heapUsed() {
        try {
            return new String(RawHttp.get(port, "/metrics").body(), StandardCharsets.UTF_8).lines()
                    .filter(line -> line.startsWith("jvm_memory_used_bytes{area=\"heap\"}"))
                    .map(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) / (1 << 20) + " MiB")
                    .findFirst().orElse("not reported");
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e + ")";
        }
    }

    private String tail() {
        List<String> lines = log.toString(StandardCharsets.UTF_8).lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
}
