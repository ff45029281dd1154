package io.ringkv.net.tls;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;

import io.ringkv.net.ExclusiveOutbound;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RecordWriter} reuses a full record's buffer only after the plain connection has written
 * it. The plain connection here is a recorder whose written-byte count the test moves by hand, and
 * the engines finished their handshake in memory, so every step is deterministic.
 */
class RecordWriterPoolingTest {
    @TempDir
    static Path keys;
    static SSLContext context;

    private final PacketBufferPool pool = new PacketBufferPool(8);
    private final RecordingPlain plain = new RecordingPlain();
    private SSLEngine client;
    private SSLEngine server;
    private RecordWriter writer;

    @BeforeAll
    static void makeContext() throws Exception {
        context = TestTlsContext.create(keys);
    }

    @BeforeEach
    void handshake() throws Exception {
        client = context.createSSLEngine("localhost", 443);
        client.setUseClientMode(true);
        server = context.createSSLEngine();
        server.setUseClientMode(false);
        InMemoryHandshake.run(client, server);
        writer = new RecordWriter(client, pool);
    }

    @Test
    void aFullRecordsBufferReturnsToThePoolOnlyOnceWrittenAndIsThenReused() throws Exception {
        writer.add(new ByteBuffer[] {ByteBuffer.wrap(new byte[40 * 1024])}, false);
        writer.wrapQueued(plain, false);
        List<ByteBuffer> first = plain.lastGroup();
        assertThat("two full records and the rest", first.size(), is(3));
        assertThat(writer.groupsInFlight(), is(1));

        plain.written = plain.enqueued - 1; // all but the last byte
        writer.add(new ByteBuffer[] {ByteBuffer.wrap(new byte[100])}, false);
        writer.wrapQueued(plain, false);
        assertThat("nothing back while a byte of the group is unwritten", pool.size(), is(0));
        assertThat(writer.groupsInFlight(), is(1));

        plain.written = plain.enqueued;
        writer.add(new ByteBuffer[] {ByteBuffer.wrap(new byte[16 * 1024])}, false);
        writer.wrapQueued(plain, false);
        assertThat(writer.groupsInFlight(), is(1)); // the new group's record
        assertThat("one of the two written buffers went out again", pool.size(), is(1));
        ByteBuffer reused = plain.lastGroup().getFirst();
        assertThat(reused == first.get(0) || reused == first.get(1), is(true));
    }

    @Test
    void reusedBuffersCarryExactlyTheNewRecords() throws Exception {
        byte[] sent = new byte[200 * 1024];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 31 + 7);
        }
        ByteBuffer received = ByteBuffer.allocate(sent.length + 1024);
        for (int round = 0; round < 4; round++) {
            int from = round * 50 * 1024;
            writer.add(new ByteBuffer[] {ByteBuffer.wrap(sent, from, 50 * 1024)}, false);
            writer.wrapQueued(plain, false);
            // The "socket" takes the records: decrypt them, then tell the writer they are written.
            for (ByteBuffer record : plain.lastGroup()) {
                server.unwrap(record.duplicate(), received);
            }
            plain.written = plain.enqueued;
        }
        assertThat(received.flip().remaining(), is(sent.length));
        byte[] got = new byte[sent.length];
        received.get(got);
        assertThat(got, is(sent));
    }

    @Test
    void aFlushThatWroteEverythingLeavesNothingInFlight() throws Exception {
        writer.add(new ByteBuffer[] {ByteBuffer.wrap(new byte[40 * 1024])}, false);
        writer.wrapQueued(plain, false);
        writer.reclaimWritten(plain);
        assertThat("not written yet: kept", writer.groupsInFlight(), is(1));
        plain.written = plain.enqueued; // what a flush that emptied the queue reports
        writer.reclaimWritten(plain);
        assertThat(writer.groupsInFlight(), is(0));
        assertThat(pool.size(), is(2));
    }

    @Test
    void noMoreThanItsBoundOfPooledBuffersIsInFlightPerConnection() throws Exception {
        PacketBufferPool large = new PacketBufferPool(1000);
        RecordWriter bounded = new RecordWriter(client, large);
        int records = RecordWriter.IN_FLIGHT_BUFFERS_MAX + 6;
        bounded.add(new ByteBuffer[] {ByteBuffer.wrap(new byte[records * RecordWriter.FULL_RECORD_PLAINTEXT])}, false);
        bounded.wrapQueued(plain, false);
        assertThat("more records than the bound", plain.lastGroup().size() > RecordWriter.IN_FLIGHT_BUFFERS_MAX, is(true));
        plain.written = plain.enqueued;
        bounded.reclaimWritten(plain);
        assertThat("the records beyond the bound had fresh buffers", large.size(), is(RecordWriter.IN_FLIGHT_BUFFERS_MAX));
    }

    @Test
    void buffersTheClosingConnectionRefusedGoBackAtOnce() throws Exception {
        plain.open = false;
        writer.add(new ByteBuffer[] {ByteBuffer.wrap(new byte[40 * 1024])}, false);
        writer.wrapQueued(plain, false);
        assertThat(writer.groupsInFlight(), is(0));
        assertThat(pool.size(), is(2));
    }

    @Test
    void aPlainConnectionThatDoesNotCountGetsFreshBuffers() throws Exception {
        plain.counting = false;
        writer.add(new ByteBuffer[] {ByteBuffer.wrap(new byte[40 * 1024])}, false);
        writer.wrapQueued(plain, false);
        assertThat(writer.groupsInFlight(), is(0));
        assertThat(pool.size(), is(0));
    }

    @Test
    void thePoolKeepsNoMoreThanItsBound() {
        PacketBufferPool small = new PacketBufferPool(2);
        ByteBuffer a = ByteBuffer.allocate(10);
        small.give(a);
        small.give(ByteBuffer.allocate(10));
        small.give(ByteBuffer.allocate(10));
        assertThat(small.size(), is(2));
        assertThat(small.take(10), sameInstance(a));
        assertThat("too small for the request: a new one", small.take(20).capacity(), is(20));
        assertThat(small.size(), is(0));
    }

    /**
     * The plain connection's queue as the writer holds it: records enqueued groups, counts bytes as
     * NioConnection does, written as the test says.
     */
    private static final class RecordingPlain implements ExclusiveOutbound {
        final List<ByteBuffer[]> groups = new ArrayList<>();
        long enqueued;
        long written;
        boolean open = true;
        boolean counting = true;

        List<ByteBuffer> lastGroup() {
            return List.of(groups.getLast());
        }

        @Override
        public boolean enqueue(ByteBuffer... group) {
            if (!open) {
                return false;
            }
            groups.add(group);
            for (ByteBuffer buffer : group) {
                enqueued += buffer.remaining();
            }
            return true;
        }

        @Override
        public long bytesEnqueued() {
            return counting ? enqueued : -1;
        }

        @Override
        public long bytesWritten() {
            return counting ? written : -1;
        }
    }

    /** Drives a client and a server engine through their handshake over in-memory buffers. */
    private static final class InMemoryHandshake {
        static void run(SSLEngine client, SSLEngine server) throws Exception {
            ByteBuffer toServer = ByteBuffer.allocate(1 << 17);
            ByteBuffer toClient = ByteBuffer.allocate(1 << 17);
            client.beginHandshake();
            server.beginHandshake();
            for (int step = 0; step < 1000; step++) {
                boolean clientBusy = step(client, toClient, toServer);
                boolean serverBusy = step(server, toServer, toClient);
                if (!clientBusy && !serverBusy && done(client) && done(server)) {
                    return;
                }
            }
            throw new AssertionError("handshake did not finish: " + client.getHandshakeStatus() + " / "
                    + server.getHandshakeStatus());
        }

        private static boolean done(SSLEngine engine) {
            HandshakeStatus status = engine.getHandshakeStatus();
            return status == HandshakeStatus.NOT_HANDSHAKING || status == HandshakeStatus.FINISHED;
        }

        /** One move of one engine; false when it has nothing to do now. */
        private static boolean step(SSLEngine engine, ByteBuffer in, ByteBuffer out) throws Exception {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> {
                    engine.wrap(ByteBuffer.allocate(0), out);
                    return true;
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    in.flip();
                    int before = in.remaining();
                    engine.unwrap(in, ByteBuffer.allocate(1 << 17));
                    boolean moved = in.remaining() != before;
                    in.compact();
                    return moved;
                }
                case NEED_TASK -> {
                    Runnable task;
                    while ((task = engine.getDelegatedTask()) != null) {
                        task.run();
                    }
                    return true;
                }
                default -> {
                    return false;
                }
            }
        }
    }
}
