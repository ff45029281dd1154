package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ringkv.http.h2.ContinuationFrame;
import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.GoAwayFrame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.Preface;
import io.ringkv.http.h2.RstStreamFrame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP/1.1 read timeouts, for HTTP/2: a connection that never completes its preface and
 * SETTINGS, one with no stream left open, a field block whose CONTINUATION never comes, and a
 * request body that stops or trickles are each cut off, so none holds a connection slot, a
 * decoded header block or body memory for ever. One deadline is short in each test and the
 * others are long, so the test shows which one fired.
 */
class Http2TimeoutTest {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration LONG = Duration.ofSeconds(120);

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    private HttpServer start(Duration idle, Duration header) throws IOException {
        return fixture.start(ServerFixture.config().idleTimeout(idle).headerReadTimeout(header).build(),
                request -> CompletableFuture.completedFuture(Response.text(200, request.body().length + " bytes")));
    }

    @Test
    void aPrefaceWithoutSettingsIsClosedAfterTheHeaderReadTimeout() throws Exception {
        HttpServer server = start(LONG, SHORT);
        try (RawH2 client = new RawH2(server.port())) {
            client.write(toArray(Preface.bytes()));
            assertNull(client.readUntil(f -> false), "the server closes the connection");
            Poll.until("the connection is released", () -> server.openConnections() == 0);
        }
    }

    @Test
    void aConnectionWithNoStreamIsClosedAfterTheIdleTimeoutWithGoAway() throws Exception {
        HttpServer server = start(SHORT, LONG);
        try (RawH2 client = new RawH2(server.port())) {
            client.open();
            client.send(client.request(1, "GET", "/one", true));
            Frame answer = client.readUntil(f -> f instanceof HeadersFrame h && h.streamId() == 1);
            assertNotNull(answer, "the request is answered");
            Frame goAway = client.readUntil(f -> f instanceof GoAwayFrame);
            assertTrue(goAway instanceof GoAwayFrame g && g.error() == ErrorCode.NO_ERROR && g.lastStreamId() == 1,
                    "GOAWAY(NO_ERROR, last stream 1) once idle: " + goAway);
            assertNull(client.readUntil(f -> false), "then the close");
            Poll.until("the connection is released", () -> server.openConnections() == 0);
        }
    }

    @Test
    void settingsAndThenNothingIsClosedAfterTheIdleTimeout() throws Exception {
        HttpServer server = start(SHORT, LONG);
        try (RawH2 client = new RawH2(server.port())) {
            client.open();
            Frame goAway = client.readUntil(f -> f instanceof GoAwayFrame);
            assertTrue(goAway instanceof GoAwayFrame g && g.error() == ErrorCode.NO_ERROR, "GOAWAY(NO_ERROR): " + goAway);
            assertNull(client.readUntil(f -> false), "then the close");
            Poll.until("the connection is released", () -> server.openConnections() == 0);
        }
    }

    /**
     * A HEADERS without END_HEADERS, then nothing or a trickle of CONTINUATION frames that never
     * ends the block: the block must be complete within the header-read timeout of its start.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFieldBlockNotCompletedInTimeClosesTheConnection(boolean trickle) throws Exception {
        HttpServer server = start(LONG, SHORT);
        try (RawH2 client = new RawH2(server.port())) {
            client.open();
            client.send(new HeadersFrame(1, client.block("GET", "/never-ends"), true, false));
            AtomicBoolean stop = new AtomicBoolean();
            Thread trickler = Thread.ofPlatform().daemon().start(() -> {
                // Fewer than http-core's 32 CONTINUATION frames per block: no abuse limit ends it.
                for (int i = 0; trickle && i < 30 && !stop.get(); i++) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // pacing the attack, not synchronising
                    try {
                        client.send(new ContinuationFrame(1, ByteBuffer.wrap(new byte[] {0x00, 0x01, 'x', 0x01, 'y'}), false));
                    } catch (IOException closedByServer) {
                        return;
                    }
                }
            });
            try {
                Frame goAway = client.readUntil(f -> f instanceof GoAwayFrame);
                assertTrue(goAway instanceof GoAwayFrame, "a GOAWAY before the close: " + goAway);
                assertNull(client.readUntil(f -> false), "then the close");
            } finally {
                stop.set(true);
                trickler.join(TimeUnit.SECONDS.toMillis(30));
            }
            Poll.until("the connection is released", () -> server.openConnections() == 0);
        }
    }

    /**
     * A request whose body stops (after 100 bytes, or before any) makes no progress for an idle
     * timeout: 408 on its stream, the stream reset with NO_ERROR so the client stops sending, and
     * no permit held.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 100})
    void aRequestBodyThatStopsArrivingIsAnswered408(int bytesSent) throws Exception {
        HttpServer server = start(SHORT, LONG);
        try (RawH2 client = new RawH2(server.port())) {
            client.open();
            client.send(client.request(1, "PUT", "/v", false, "content-length", "1000"));
            if (bytesSent > 0) {
                client.send(new DataFrame(1, ByteBuffer.allocate(bytesSent), false));
            }
            Frame answer = client.readUntil(f -> f instanceof HeadersFrame h && h.streamId() == 1);
            assertNotNull(answer, "stream 1 answered before the close");
            assertEquals("408", client.lastStatus());
            Frame reset = client.readUntil(f -> f instanceof RstStreamFrame r && r.streamId() == 1);
            assertTrue(reset instanceof RstStreamFrame r && r.error() == ErrorCode.NO_ERROR,
                    "RST_STREAM(NO_ERROR) after the answer: " + reset);
            assertEquals(0, server.inFlight());
        }
    }

    /**
     * A body that keeps coming, at 200 bytes/s, below the 1 KiB/s minimum: it makes progress (the
     * idle timeout is long), but over the rate window it is too slow: 408 on its stream.
     */
    @Test
    void aRequestBodyTrickledBelowTheMinimumRateIsAnswered408() throws Exception {
        HttpServer server = start(LONG, LONG);
        try (RawH2 client = new RawH2(server.port())) {
            client.open();
            client.send(client.request(1, "PUT", "/slow", false));
            AtomicBoolean stop = new AtomicBoolean();
            Thread trickler = Thread.ofPlatform().daemon().start(() -> {
                for (int i = 0; i < 300 && !stop.get(); i++) {
                    try {
                        client.send(new DataFrame(1, ByteBuffer.allocate(100), false));
                    } catch (IOException closedByServer) {
                        return;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500)); // pacing the attack, not synchronising
                }
            });
            try {
                Frame answer = client.readUntil(f -> f instanceof HeadersFrame h && h.streamId() == 1);
                assertNotNull(answer, "stream 1 answered before the close");
                assertEquals("408", client.lastStatus());
            } finally {
                stop.set(true);
                trickler.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
