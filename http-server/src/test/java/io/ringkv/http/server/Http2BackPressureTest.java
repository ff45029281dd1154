package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.SettingId;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.h2.WindowUpdateFrame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 client that sends requests and never reads must not make the server queue answers
 * without bound: once the connection's unsent bytes pass the high-water mark the server stops
 * reading it (the client's writes then block in its socket), and as the queue never drains the
 * connection is closed. The client opens its windows wide, so flow control does not hold the
 * answers back: only the server's own back-pressure can.
 */
class Http2BackPressureTest {
    private static final int RESPONSE_BYTES = 256 * 1024;
    private static final int BODY_FRAME_BYTES = 16 * 1024;
    /** 64 MiB of request bodies, 500 MiB of answers if all were handled: far more than socket buffers hold. */
    private static final int REQUESTS = 2_000;

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    @Test
    void aClientThatNeverReadsStopsBeingReadAndIsClosed() throws Exception {
        byte[] answer = new byte[RESPONSE_BYTES];
        AtomicInteger handled = new AtomicInteger();
        HttpServer server = fixture.start(ServerFixture.config().idleTimeout(Duration.ofSeconds(1)).build(), request -> {
            if (request.path().equals("/big")) {
                handled.incrementAndGet();
            }
            return CompletableFuture.completedFuture(Response.of(200, answer));
        });
        try (RawH2 greedy = new RawH2(server.port(), 4096)) {
            greedy.open(new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, Integer.MAX_VALUE));
            greedy.send(new WindowUpdateFrame(0, Integer.MAX_VALUE - 65_535));
            AtomicInteger written = new AtomicInteger();
            AtomicReference<IOException> stoppedBy = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().daemon().name("h2-never-reads").start(() -> {
                try {
                    for (int i = 0; i < REQUESTS; i++) {
                        int id = 2 * i + 1;
                        greedy.send(greedy.request(id, "POST", "/big", false),
                                new DataFrame(id, ByteBuffer.allocate(BODY_FRAME_BYTES), false),
                                new DataFrame(id, ByteBuffer.allocate(BODY_FRAME_BYTES), true));
                        written.incrementAndGet();
                    }
                } catch (IOException e) {
                    stoppedBy.set(e);
                }
            });
            writer.join(TimeUnit.SECONDS.toMillis(90));
            assertFalse(writer.isAlive(), "the writer was neither let through nor cut off");
            assertTrue(stoppedBy.get() != null, "the server closed the connection of a client that reads nothing; it read all "
                    + written.get() + " requests and handled " + handled.get());
            assertTrue(handled.get() < REQUESTS / 4, "requests handled for a client that reads nothing: " + handled.get());
        }
        Poll.until("the connection and its permits are released", () -> server.openConnections() == 0 && server.inFlight() == 0);
        try (Http2PriorKnowledgeTest.H2Peer other = new Http2PriorKnowledgeTest.H2Peer(server.port())) {
            int id = other.request("GET", "/small", null);
            assertEquals("200", other.awaitAnswers(1).get(id).status());
        }
    }

    /**
     * The flood issue 32 measured (RSS from 119 MB to 1.9 GB in 30 s): WINDOW_UPDATE with
     * increment 0 on ever new stream ids, each answered with a RST_STREAM, from a client that
     * reads nothing. The connection must be cut off long before the client has written 16 MiB
     * of it (1.3 million frames); before, the server read it all and queued every answer.
     */
    @Test
    void aZeroWindowUpdateFloodThatNeverReadsIsCutOff() throws Exception {
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        long floodBytes = 16L << 20;
        long written = 0;
        IOException stoppedBy = null;
        try (RawH2 flooder = new RawH2(server.port(), 4096)) {
            flooder.open();
            int id = 1;
            while (written < floodBytes && stoppedBy == null) {
                WindowUpdateFrame[] batch = new WindowUpdateFrame[4096];
                for (int i = 0; i < batch.length; i++, id += 2) {
                    batch[i] = new WindowUpdateFrame(id, 0);
                }
                byte[] bytes = flooder.encode(batch);
                try {
                    flooder.write(bytes);
                    written += bytes.length;
                } catch (IOException e) {
                    stoppedBy = e;
                }
            }
        }
        assertTrue(stoppedBy != null, "the server read all " + written + " bytes of the flood and kept the connection");
        Poll.until("the connection is released", () -> server.openConnections() == 0);
        try (Http2PriorKnowledgeTest.H2Peer other = new Http2PriorKnowledgeTest.H2Peer(server.port())) {
            int streamId = other.request("GET", "/unaffected", null);
            assertEquals("GET /unaffected 0\n", other.awaitAnswers(1).get(streamId).text());
        }
    }
}
