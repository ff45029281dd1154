package io.ringkv.net;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectionTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private final EventLoopGroup group;
    private final List<AutoCloseable> resources = new ArrayList<>();

    ConnectionTest() throws IOException {
        group = new EventLoopGroup(2, "conn-test");
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        group.close();
    }

    private Acceptor listen(AcceptHandler handler) throws IOException {
        Acceptor acceptor = group.bind(LOOPBACK, 16, ChannelOptions.defaults(), handler);
        resources.add(acceptor);
        return acceptor;
    }

    private Socket dial(Acceptor acceptor) throws IOException {
        Socket socket = new Socket();
        resources.add(socket);
        socket.connect(acceptor.localAddress(), 10_000);
        socket.setSoTimeout(20_000);
        return socket;
    }

    private static byte[] readN(InputStream in, int count) throws IOException {
        return in.readNBytes(count);
    }

    @Test
    void echoesBytesOverARealSocket() throws Exception {
        Acceptor acceptor = listen(remote -> new RecordingHandler(true));
        Socket socket = dial(acceptor);
        socket.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(readN(socket.getInputStream(), 4), StandardCharsets.US_ASCII), is("ping"));
    }

    @Test
    void acceptedSocketsHaveNoDelaySet() throws Exception {
        CompletableFuture<Boolean> noDelay = new CompletableFuture<>();
        Acceptor acceptor = listen(remote -> new RecordingHandler(false) {
            @Override
            public void onOpen(Connection connection) {
                noDelay.complete(((NioConnection) connection).noDelay());
            }
        });
        dial(acceptor);
        assertThat(noDelay.get(10, TimeUnit.SECONDS), is(true));
    }

    @Test
    void closeAfterFlushDeliversEverythingThenEndOfStream() throws Exception {
        byte[] payload = new byte[3 * 1024 * 1024];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        Acceptor acceptor = listen(remote -> new RecordingHandler(false) {
            @Override
            public void onOpen(Connection connection) {
                connection.write(ByteBuffer.wrap(payload));
                connection.closeAfterFlush();
                super.onOpen(connection);
            }
        });
        Socket socket = dial(acceptor);
        InputStream in = socket.getInputStream();
        assertThat(java.util.Arrays.equals(readN(in, payload.length), payload), is(true));
        assertThat(in.read(), is(-1));
    }

    @Test
    void slowReaderMakesTheConnectionUnwritableUntilItDrains() throws Exception {
        Accepted accepted = acceptOne();
        Connection connection = accepted.connection();
        int chunk = 64 * 1024;
        int written = 0;
        while (connection.isWritable() && written < 256 * 1024 * 1024) {
            connection.write(ByteBuffer.allocate(chunk));
            written += chunk;
        }
        assertThat(connection.isWritable(), is(false));
        assertThat(accepted.server().writableCalls.get(), is(0));
        readN(accepted.socket().getInputStream(), written);
        Poll.until("the writable signal", () -> accepted.server().writableCalls.get() == 1);
        assertThat(connection.queuedBytes(), is(0L));
        assertThat(connection.isWritable(), is(true));
    }

    @Test
    void aClaimedQueueRefusesASecondProducerAndTheConnectionsOwnWrites() throws Exception {
        Accepted accepted = acceptOne();
        Connection connection = accepted.connection();
        ExclusiveOutbound sole = connection.claimOutbound();

        assertThrows(IllegalStateException.class, connection::claimOutbound);
        assertThrows(IllegalStateException.class, () -> connection.write(ascii("stray")));
        assertThrows(IllegalStateException.class, () -> connection.enqueue(ascii("stray")));
        assertThrows(IllegalStateException.class, () -> connection.writeUrgent(ascii("stray")));

        assertThat(sole.enqueue(ascii("first;")), is(true));
        assertThat(sole.enqueue(ascii("second")), is(true));
        long enqueued = sole.bytesEnqueued();
        assertThat(enqueued, is(12L));
        connection.flush();
        assertThat(new String(readN(accepted.socket().getInputStream(), 12), StandardCharsets.US_ASCII),
                is("first;second"));
        Poll.until("the written count", () -> sole.bytesWritten() == enqueued);
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** The server's side of a connection dialled from a plain socket: its handler, the socket, the connection. */
    private record Accepted(RecordingHandler server, Socket socket, Connection connection) {
    }

    private Accepted acceptOne() throws Exception {
        RecordingHandler server = new RecordingHandler(false);
        Acceptor acceptor = listen(remote -> server);
        Socket socket = dial(acceptor);
        return new Accepted(server, socket, server.opened.get(10, TimeUnit.SECONDS));
    }

    @Test
    void abortResetsTheSocketAndNotifiesTheHandlerOnce() throws Exception {
        Accepted accepted = acceptOne();
        Connection connection = accepted.connection();
        IOException cause = new IOException("test abort");
        connection.abort(cause);
        connection.abort(new IOException("second abort is ignored"));
        assertThat(accepted.server().closed.get(10, TimeUnit.SECONDS), is(cause));
        assertThat(endOfStreamOrReset(accepted.socket().getInputStream()), is(true));
        assertThat(accepted.server().closedCalls.get(), is(1));
        assertThat(connection.write(ByteBuffer.allocate(1)), is(false));
    }

    private static boolean endOfStreamOrReset(InputStream in) {
        try {
            return in.read() == -1;
        } catch (IOException reset) {
            return true;
        }
    }

    @Test
    void peerHalfCloseIsReportedAndTheDefaultClosesAfterFlush() throws Exception {
        RecordingHandler server = new RecordingHandler(true);
        Acceptor acceptor = listen(remote -> server);
        Socket socket = dial(acceptor);
        socket.getOutputStream().write("bye".getBytes(StandardCharsets.US_ASCII));
        socket.shutdownOutput();
        InputStream in = socket.getInputStream();
        assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII), is("bye"));
        assertThat(server.closed.get(10, TimeUnit.SECONDS), instanceOf(RecordingHandler.NoCause.class));
        assertThat(server.inputClosedCalls.get(), is(1));
    }

    @Test
    void suspendedReadsKeepUnconsumedBytesAndPresentThemOnResume() throws Exception {
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        RecordingHandler pausing = new RecordingHandler(false) {
            @Override
            public void onRead(Connection connection, ByteBuffer input) {
                // Consume one line per call, then pause, as a pipelining server would.
                int start = input.position();
                for (int i = start; i < input.limit(); i++) {
                    if (input.get(i) == '\n') {
                        byte[] line = new byte[i - start];
                        input.get(line).get();
                        seen.add(new String(line, StandardCharsets.US_ASCII));
                        connection.suspendReads();
                        return;
                    }
                }
            }
        };
        Acceptor acceptor = listen(remote -> pausing);
        Socket socket = dial(acceptor);
        OutputStream out = socket.getOutputStream();
        out.write("one\ntwo\nthree\n".getBytes(StandardCharsets.US_ASCII));
        Connection connection = pausing.opened.get(10, TimeUnit.SECONDS);
        Poll.until("first line", () -> seen.size() == 1);
        connection.resumeReads();
        Poll.until("second line", () -> seen.size() == 2);
        connection.resumeReads();
        Poll.until("third line", () -> seen.size() == 3);
        assertThat(seen, is(List.of("one", "two", "three")));
    }

    @Test
    void resumingFromInsideOnReadLosesNoBytes() throws Exception {
        StringBuilder lines = new StringBuilder();
        RecordingHandler stopAndGo = new RecordingHandler(false) {
            @Override
            public void onRead(Connection connection, ByteBuffer input) {
                // One byte per call, pausing and resuming within the callback, as a pipelining
                // server does when a response completes while it is parsing.
                synchronized (lines) {
                    lines.append((char) input.get());
                }
                connection.suspendReads();
                connection.resumeReads();
            }
        };
        Acceptor acceptor = listen(remote -> stopAndGo);
        Socket socket = dial(acceptor);
        String sent = "abcdefghijklmnopqrstuvwxyz".repeat(40);
        socket.getOutputStream().write(sent.getBytes(StandardCharsets.US_ASCII));
        Poll.until("every byte arrived", () -> {
            synchronized (lines) {
                return lines.length() >= sent.length();
            }
        });
        synchronized (lines) {
            assertThat(lines.toString(), is(sent));
        }
    }

    @Test
    void retainedSlicesKeepTheirBytesWhileLaterReadsFillTheLoopsBuffers() throws Exception {
        // Every read keeps a 16-byte slice at its start and drops the rest; 3 MB arrive in many
        // reads, more than the loop's buffers hold, so a retained region that were reused would
        // show other bytes by the end.
        List<ByteBuffer> retained = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Integer> offsets = java.util.Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> done = new CompletableFuture<>();
        int total = 3 * 1024 * 1024;
        Acceptor acceptor = listen(remote -> new RecordingHandler(false) {
            private int seen;

            @Override
            public void onRead(Connection connection, ByteBuffer input) {
                int length = Math.min(16, input.remaining());
                // Alternate writable and read-only slices: HTTP/1.1 bodies come read-only, h2 DATA writable.
                ByteBuffer slice = input.slice(input.position(), length);
                ByteBuffer kept = connection.retain(offsets.size() % 2 == 0 ? slice : slice.asReadOnlyBuffer());
                assertThat(kept.isReadOnly(), is(true));
                retained.add(kept);
                offsets.add(seen);
                seen += input.remaining();
                input.position(input.limit());
                if (seen == total) {
                    done.complete(null);
                }
            }
        });
        Socket socket = dial(acceptor);
        byte[] payload = new byte[total];
        new java.util.Random(42).nextBytes(payload);
        socket.getOutputStream().write(payload);
        done.get(30, TimeUnit.SECONDS);
        assertThat(retained.size() > 1, is(true));
        synchronized (retained) {
            for (int i = 0; i < retained.size(); i++) {
                ByteBuffer kept = retained.get(i);
                byte[] expected = java.util.Arrays.copyOfRange(payload, offsets.get(i), offsets.get(i) + kept.remaining());
                byte[] actual = new byte[kept.remaining()];
                kept.duplicate().get(actual);
                assertThat("slice " + i + " at offset " + offsets.get(i), actual, is(expected));
            }
        }
    }

    /**
     * A handler for a loop with 4 KiB read buffers that holds its input until the test resumes it,
     * consumes everything it is given, and notes how many reads came before the loop's next task.
     */
    private static final class BurstCountingHandler extends RecordingHandler {
        final java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
        final CompletableFuture<Integer> readsBeforeNextTask = new CompletableFuture<>();
        private final int suspendAfter;

        BurstCountingHandler(int suspendAfter) {
            super(false);
            this.suspendAfter = suspendAfter;
        }

        @Override
        public void onOpen(Connection connection) {
            connection.suspendReads();
            super.onOpen(connection);
        }

        @Override
        public void onRead(Connection connection, ByteBuffer input) {
            bytes.addAndGet(input.remaining());
            input.position(input.limit());
            int count = reads.incrementAndGet();
            if (count == 1) {
                // Tasks run after the loop's I/O for this event: the count they see is the burst's.
                connection.loop().execute(() -> readsBeforeNextTask.complete(reads.get()));
            }
            if (count == suspendAfter) {
                connection.suspendReads();
            }
        }
    }

    private BurstCountingHandler sendWhileSuspended(EventLoopGroup loops, int suspendAfter, int total) throws Exception {
        BurstCountingHandler handler = new BurstCountingHandler(suspendAfter);
        Acceptor acceptor = loops.bind(LOOPBACK, 16, ChannelOptions.defaults(), remote -> handler);
        resources.add(acceptor);
        Socket socket = dial(acceptor);
        // Written in full before reading resumes: on loopback the bytes then wait in our socket.
        socket.getOutputStream().write(new byte[total]);
        handler.opened.get(10, TimeUnit.SECONDS).resumeReads();
        return handler;
    }

    @Test
    void readsThatFillTheirBufferGoOnInTheSameEventUpToTheCap() throws Exception {
        try (EventLoopGroup loops = new EventLoopGroup(1, "burst", 4096, System::nanoTime)) {
            BurstCountingHandler handler = sendWhileSuspended(loops, Integer.MAX_VALUE, 16 * 4096);
            assertThat(handler.readsBeforeNextTask.get(10, TimeUnit.SECONDS), is(NioConnection.READS_PER_EVENT_MAX));
            Poll.until("all bytes read", () -> handler.bytes.get() == 16 * 4096);
        }
    }

    @Test
    void suspendingReadsInsideABurstStopsItThere() throws Exception {
        try (EventLoopGroup loops = new EventLoopGroup(1, "burst", 4096, System::nanoTime)) {
            BurstCountingHandler handler = sendWhileSuspended(loops, 2, 16 * 4096);
            assertThat(handler.readsBeforeNextTask.get(10, TimeUnit.SECONDS), is(2));
            handler.opened.get().resumeReads();
            Poll.until("all bytes read after resuming", () -> handler.bytes.get() == 16 * 4096);
        }
    }

    @Test
    void connectsOutboundAndExchangesBytes() throws Exception {
        Acceptor acceptor = listen(remote -> new RecordingHandler(true));
        RecordingHandler client = new RecordingHandler(false);
        Connection connection = group.connect(acceptor.localAddress(), Duration.ofSeconds(5),
                ChannelOptions.defaults(), client).get(10, TimeUnit.SECONDS);
        assertThat(client.opened.isDone(), is(true));
        connection.write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
        Poll.until("the echo", () -> client.text().equals("hello"));
        connection.closeAfterFlush();
        assertThat(client.closed.get(10, TimeUnit.SECONDS), instanceOf(RecordingHandler.NoCause.class));
    }

    @Test
    void connectToAClosedPortFailsWithConnectException() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        CompletableFuture<Connection> attempt = group.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), Duration.ofSeconds(5),
                ChannelOptions.defaults(), new RecordingHandler(false));
        ExecutionException failure = expectFailure(attempt);
        assertThat(failure.getCause(), instanceOf(ConnectException.class));
    }

    @Test
    void connectThatGetsNoAnswerFailsWithConnectTimeout() throws Exception {
        // A listener whose accept queue is full drops further SYNs, so a connect hangs (Linux).
        ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        resources.add(full);
        InetSocketAddress address = (InetSocketAddress) full.getLocalSocketAddress();
        boolean hangs = false;
        for (int i = 0; i < 16 && !hangs; i++) {
            Socket filler = new Socket();
            resources.add(filler);
            try {
                filler.connect(address, 300);
            } catch (SocketTimeoutException e) {
                hangs = true;
            }
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(hangs, "this kernel does not drop SYNs to a full accept queue");
        CompletableFuture<Connection> attempt = group.connect(address, Duration.ofMillis(200),
                ChannelOptions.defaults(), new RecordingHandler(false));
        assertThat(expectFailure(attempt).getCause(), instanceOf(ConnectTimeoutException.class));
    }

    @Test
    void closingTheGroupClosesConnectionsAndTheirHandlersHearOfIt() throws Exception {
        RecordingHandler server = new RecordingHandler(false);
        Acceptor acceptor = listen(remote -> server);
        Socket socket = dial(acceptor);
        server.opened.get(10, TimeUnit.SECONDS);
        group.close();
        assertThat(server.closed.get(10, TimeUnit.SECONDS), instanceOf(IOException.class));
        assertThat(endOfStreamOrReset(socket.getInputStream()), is(true));
    }

    @Test
    void refusedConnectionIsClosedAtOnce() throws Exception {
        Acceptor acceptor = listen(remote -> null);
        Socket socket = dial(acceptor);
        assertThat(endOfStreamOrReset(socket.getInputStream()), is(true));
    }

    @Test
    void bindingATakenPortFailsWithBindException() throws Exception {
        Acceptor acceptor = listen(remote -> new RecordingHandler(false));
        try {
            group.bind(acceptor.localAddress(), 16, ChannelOptions.defaults(), remote -> null);
            throw new AssertionError("expected a BindException");
        } catch (java.net.BindException expected) {
            assertThat(expected.getMessage() != null, is(true));
        }
    }

    /**
     * A producer may hold its own locks while it enqueues and flushes; a writability callback run
     * inside that call would take the handler's locks in the opposite order (a deadlock between two
     * request bodies on one HTTP/2 connection came from this). The callback must come as a loop task
     * of its own, after the producer's call returned.
     */
    @Test
    void writabilityIsAnnouncedAfterTheFlushThatDrainedTheQueueHasReturned() throws Exception {
        CompletableFuture<Boolean> announcedInsideTheFlush = new CompletableFuture<>();
        CompletableFuture<Boolean> askedWhileFull = new CompletableFuture<>();
        ChannelOptions smallWaterMarks = new ChannelOptions(8 * 1024, 1024,
                ChannelOptions.LINGER_TIMEOUT_DEFAULT, ChannelOptions.LINGER_BYTES_MAX_DEFAULT);
        Acceptor acceptor = group.bind(LOOPBACK, 16, smallWaterMarks, remote -> new RecordingHandler(false) {
            private boolean producing;

            @Override
            public void onOpen(Connection connection) {
                producing = true;
                connection.enqueue(ByteBuffer.allocate(16 * 1024)); // passes the high-water mark
                askedWhileFull.complete(!connection.isWritable()); // a producer about to wait asks
                connection.flush(); // loopback takes it all: the queue drains below low water here
                producing = false;
            }

            @Override
            public void onWritable(Connection connection) {
                announcedInsideTheFlush.complete(producing);
            }
        });
        resources.add(acceptor);
        Socket socket = dial(acceptor);
        assertThat(readN(socket.getInputStream(), 16 * 1024).length, is(16 * 1024));
        assertThat(askedWhileFull.get(10, TimeUnit.SECONDS), is(true));
        assertThat(announcedInsideTheFlush.get(10, TimeUnit.SECONDS), is(false));
    }

    private static ExecutionException expectFailure(CompletableFuture<?> future) throws Exception {
        try {
            future.get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure");
        } catch (ExecutionException e) {
            return e;
        }
    }
}
