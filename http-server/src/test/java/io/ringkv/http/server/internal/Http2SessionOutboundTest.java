package io.ringkv.http.server.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ringkv.http.h2.FrameGenerator;
import io.ringkv.http.h2.PingFrame;
import io.ringkv.http.h2.Preface;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.net.ChannelOptions;
import io.ringkv.net.Connection;
import io.ringkv.net.EventLoop;
import io.ringkv.net.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bound on what one HTTP/2 connection may queue, against a connection whose peer reads
 * nothing at all (it never writes a byte, so nothing drains). Over real sockets the kernel's
 * send buffer (over a megabyte on loopback) takes more than one read can make us answer, so the
 * cap is shown here, where the queue is exactly what the session enqueued.
 */
class Http2SessionOutboundTest {
    private static final long HIGH_WATER = 64;

    private final EventLoopGroup loops;
    private final ExecutorService executor = HandlerExecutor.create(2, 4);
    private final FrameGenerator generator = new FrameGenerator();

    Http2SessionOutboundTest() throws Exception {
        loops = new EventLoopGroup(1, "outbound-test");
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
        loops.close();
    }

    private Http2Session session() {
        ServerConfig config = ServerConfig.builder().host("127.0.0.1").idleTimeout(Duration.ofSeconds(60))
                .channelOptions(ChannelOptions.defaults().withWaterMarks(0, HIGH_WATER)).build();
        ServerContext context = new ServerContext(config, request -> CompletableFuture.completedFuture(Response.of(200)), executor);
        return new Http2Session(context, java.util.List.of());
    }

    /** Preface, SETTINGS and then {@code pings} PINGs, each of which we must answer, in one read. */
    private byte[] prefaceSettingsAndPings(int pings) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        append(bytes, Preface.bytes());
        append(bytes, generator.generate(new SettingsFrame(false, List.of())));
        for (int i = 0; i < pings; i++) {
            append(bytes, generator.generate(new PingFrame(i, false)));
        }
        return bytes.toByteArray();
    }

    @Test
    void answersPastTheHighWaterMarkStopReadingAndADrainResumesIt() throws Exception {
        UnreadConnection connection = new UnreadConnection(loops.next());
        Http2Session session = session();
        onLoop(connection.loop, () -> {
            session.onOpen(connection);
            session.onRead(connection, ByteBuffer.wrap(prefaceSettingsAndPings(5)));
        });
        long cap = Http2Session.OUTBOUND_CAP_FACTOR * HIGH_WATER;
        assertTrue(connection.queued > HIGH_WATER && connection.queued <= cap, "queued " + connection.queued);
        assertTrue(connection.readsSuspended, "reading stopped past the high-water mark");
        assertNull(connection.aborted);

        connection.queued = 0; // the peer read it all
        onLoop(connection.loop, () -> session.onWritable(connection));
        assertFalse(connection.readsSuspended, "reading resumed once the queue drained");
    }

    @Test
    void answersOfOneReadPastTheCapAbortTheConnection() throws Exception {
        UnreadConnection connection = new UnreadConnection(loops.next());
        Http2Session session = session();
        // 40 PINGs, under http-core's 50 a second: 680 bytes of PING ACKs, past 4 x 64.
        onLoop(connection.loop, () -> {
            session.onOpen(connection);
            session.onRead(connection, ByteBuffer.wrap(prefaceSettingsAndPings(40)));
        });
        assertTrue(connection.aborted != null, "a connection past the cap of "
                + Http2Session.OUTBOUND_CAP_FACTOR * HIGH_WATER + " bytes is aborted; queued " + connection.queued);
    }

    private static void onLoop(EventLoop loop, Runnable task) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                task.run();
                done.complete(null);
            } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
            }
        });
        done.get(30, TimeUnit.SECONDS);
    }

    private static void append(ByteArrayOutputStream bytes, ByteBuffer buffer) {
        byte[] array = new byte[buffer.remaining()];
        buffer.get(array);
        bytes.writeBytes(array);
    }

    /**
     * A connection whose peer reads nothing: every enqueued byte stays queued. Writability
     * follows {@link #HIGH_WATER} with no low-water hysteresis. Touched on the loop only.
     */
    private static final class UnreadConnection implements Connection {
        final EventLoop loop;
        long queued;
        boolean readsSuspended;
        boolean closing;
        Throwable aborted;

        UnreadConnection(EventLoop loop) {
            this.loop = loop;
        }

        @Override
        public EventLoop loop() {
            return loop;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 1);
        }

        @Override
        public InetSocketAddress localAddress() {
            return new InetSocketAddress("127.0.0.1", 2);
        }

        @Override
        public boolean write(ByteBuffer... group) {
            return enqueue(group);
        }

        @Override
        public boolean enqueue(ByteBuffer... group) {
            if (!isOpen()) {
                return false;
            }
            for (ByteBuffer buffer : group) {
                queued += buffer.remaining();
            }
            return true;
        }

        @Override
        public boolean writeUrgent(ByteBuffer... group) {
            return enqueue(group);
        }

        @Override
        public void flush() {
        }

        @Override
        public long queuedBytes() {
            return queued;
        }

        @Override
        public boolean isWritable() {
            return queued < HIGH_WATER;
        }

        @Override
        public void suspendReads() {
            readsSuspended = true;
        }

        @Override
        public void resumeReads() {
            readsSuspended = false;
        }

        @Override
        public void closeAfterFlush() {
            closing = true;
        }

        @Override
        public void abort(Throwable cause) {
            aborted = cause;
        }

        @Override
        public boolean isOpen() {
            return !closing && aborted == null;
        }
    }
}
