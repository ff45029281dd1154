package io.ringkv.net.tls;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.net.ChannelOptions;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TlsConnection} as a client over a real socket, against the JDK's blocking SSLServerSocket
 * echoing what it reads: handshake, ALPN choice of the handler, plaintext both ways (1 MiB, to
 * cross many records), host name verification.
 */
@Timeout(60)
class TlsConnectionTest {
    @TempDir
    static Path keys;
    static SSLContext context;

    private EventLoopGroup group = new EventLoopGroup(1, "tls-test");
    private SSLServerSocket listener;
    private RecordCountingRelay relay;
    private ExecutorService taskPool;
    /** The plain connection under the TLS connection {@link #connect} made last. */
    private CompletableFuture<Connection> lastPlain;

    TlsConnectionTest() throws IOException {
    }

    @BeforeAll
    static void makeCertificate() throws Exception {
        context = TestTlsContext.create(keys);
    }

    @AfterEach
    void close() throws IOException {
        group.close();
        if (listener != null) {
            listener.close();
        }
        if (relay != null) {
            relay.close();
        }
        if (taskPool != null) {
            taskPool.shutdownNow();
        }
    }

    private int startEchoServer() throws IOException {
        listener = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 10, InetAddress.getLoopbackAddress());
        SSLParameters parameters = listener.getSSLParameters();
        parameters.setApplicationProtocols(new String[] {"h2"});
        listener.setSSLParameters(parameters);
        Thread echo = new Thread(() -> {
            try (SSLSocket socket = (SSLSocket) listener.accept(); InputStream in = socket.getInputStream();
                    OutputStream out = socket.getOutputStream()) {
                byte[] buffer = new byte[16 * 1024];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // the client went away or the handshake failed: the scenario decides what that means
            }
        }, "tls-echo");
        echo.setDaemon(true);
        echo.start();
        return listener.getLocalPort();
    }

    private TlsConnection connect(String host, int port, Collecting handler) {
        return connect(host, port, handler, null);
    }

    private TlsConnection connect(String host, int port, Collecting handler, Executor tasks) {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        parameters.setApplicationProtocols(new String[] {"h2", "http/1.1"});
        engine.setSSLParameters(parameters);
        Function<String, ConnectionHandler> handlers = protocol -> {
            handler.protocol.complete(protocol);
            return handler;
        };
        TlsConnection tls = tasks == null ? new TlsConnection(engine, handlers) : new TlsConnection(engine, handlers, tasks);
        lastPlain = group.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), Duration.ofSeconds(10),
                ChannelOptions.defaults(), tls);
        return tls;
    }

    /** A client connection to a fresh echo server, its handshake done. */
    private TlsConnection handshakenWithEcho(Collecting handler) throws Exception {
        int port = startEchoServer();
        TlsConnection tls = connect("localhost", port, handler);
        tls.handshake().get(30, TimeUnit.SECONDS);
        return tls;
    }

    @Test
    void handshakeChoosesTheHandlerByAlpnAndCarriesPlaintextBothWays() throws Exception {
        Collecting handler = new Collecting();
        TlsConnection tls = handshakenWithEcho(handler);
        assertThat(handler.protocol.get(), is("h2"));
        byte[] sent = new byte[1024 * 1024];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 31 + 7);
        }
        tls.write(ByteBuffer.wrap(sent));
        handler.expect(sent.length).get(30, TimeUnit.SECONDS);
        assertThat(handler.bytes(), is(sent));
    }

    @Test
    void hostNameMismatchFailsTheHandshake() throws Exception {
        int port = startEchoServer();
        Collecting handler = new Collecting();
        TlsConnection tls = connect("127.0.0.1", port, handler);
        ExecutionException error = assertThrows(ExecutionException.class, () -> tls.handshake().get(30, TimeUnit.SECONDS));
        assertThat(error.getCause(), instanceOf(SSLHandshakeException.class));
        assertThat("the application handler was never opened", handler.protocol.isDone(), is(false));
    }

    @Test
    void groupsQueuedBeforeAFlushLeaveInOneRecord() throws Exception {
        relay = new RecordCountingRelay(startEchoServer());
        Collecting handler = new Collecting();
        TlsConnection tls = connect("localhost", relay.port(), handler);
        tls.handshake().get(30, TimeUnit.SECONDS);
        tls.write(ascii("sync"));
        handler.expect(4).get(30, TimeUnit.SECONDS); // the client's handshake records have all passed the relay
        int recordsBefore = relay.applicationDataRecords();
        StringBuilder sent = new StringBuilder("sync");
        for (int i = 0; i < 10; i++) {
            String piece = "group-" + i + ";";
            sent.append(piece);
            assertThat(tls.enqueue(ascii(piece)), is(true));
        }
        tls.flush();
        handler.expect(sent.length()).get(30, TimeUnit.SECONDS);
        assertThat(handler.text(), is(sent.toString()));
        assertThat("ten queued groups, one record", relay.applicationDataRecords() - recordsBefore, is(1));
    }

    @Test
    void urgentGroupGoesAheadOfGroupsNotYetWrapped() throws Exception {
        int port = startEchoServer();
        Collecting handler = new Collecting();
        TlsConnection tls = connect("localhost", port, handler);
        tls.handshake().get(30, TimeUnit.SECONDS);
        tls.enqueue(ascii("first;"));
        tls.enqueue(ascii("second;"));
        tls.writeUrgent(ascii("URGENT;"));
        handler.expect(20).get(30, TimeUnit.SECONDS);
        assertThat(handler.text(), is("URGENT;first;second;"));
    }

    @Test
    void concurrentWritersKeepGroupsWholeAndInOrder() throws Exception {
        int port = startEchoServer();
        Collecting handler = new Collecting();
        TlsConnection tls = connect("localhost", port, handler);
        tls.handshake().get(30, TimeUnit.SECONDS);
        int writers = 8;
        int groupsEach = 300;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        int total = 0;
        for (int w = 0; w < writers; w++) {
            int id = w;
            for (int seq = 0; seq < groupsEach; seq++) {
                total += ("<" + id + ":" + seq + ">").length();
            }
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int seq = 0; seq < groupsEach; seq++) {
                    ByteBuffer[] group = {ascii("<" + id), ascii(":" + seq), ascii(">")};
                    if (seq % 3 == 0) {
                        tls.writeUrgent(group);
                    } else {
                        tls.write(group);
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        handler.expect(total).get(30, TimeUnit.SECONDS);
        String received = handler.text();
        assertThat("nothing but whole groups", received.replaceAll("<\\d+:\\d+>", ""), is(""));
        Map<Integer, Integer> next = new HashMap<>();
        Matcher group = Pattern.compile("<(\\d+):(\\d+)>").matcher(received);
        while (group.find()) {
            int id = Integer.parseInt(group.group(1));
            int seq = Integer.parseInt(group.group(2));
            assertThat("writer " + id + " in its own order", seq, is(next.getOrDefault(id, 0)));
            next.put(id, seq + 1);
        }
        for (int w = 0; w < writers; w++) {
            assertThat(next.get(w), is(groupsEach));
        }
    }

    @Test
    void thePlainConnectionsQueueIsTheRecordWritersAlone() throws Exception {
        Collecting handler = new Collecting();
        TlsConnection tls = handshakenWithEcho(handler);
        Connection plain = lastPlain.get(10, TimeUnit.SECONDS);
        assertThrows(IllegalStateException.class, plain::claimOutbound, "a second producer");
        assertThrows(IllegalStateException.class, () -> plain.write(ascii("cleartext")));
        assertThrows(IllegalStateException.class, () -> plain.writeUrgent(ascii("cleartext")));

        tls.write(ascii("still carried"));
        handler.expect(13).get(30, TimeUnit.SECONDS);
        assertThat(handler.text(), is("still carried"));
    }

    @Test
    void aTlsConnectionOverAQueueAnotherProducerClaimedFailsWhenItOpens() throws Exception {
        int port = startEchoServer();
        SSLEngine engine = context.createSSLEngine("localhost", port);
        engine.setUseClientMode(true);
        TlsConnection tls = new TlsConnection(engine, protocol -> new Collecting());
        ConnectionHandler claimingFirst = new ConnectionHandler() {
            @Override
            public void onOpen(Connection connection) {
                connection.claimOutbound(); // another producer got there first
                tls.onOpen(connection);
            }

            @Override
            public void onRead(Connection connection, ByteBuffer input) {
                tls.onRead(connection, input);
            }

            @Override
            public void onClosed(Connection connection, Throwable cause) {
                tls.onClosed(connection, cause);
            }
        };
        group.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), Duration.ofSeconds(10),
                ChannelOptions.defaults(), claimingFirst);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> tls.handshake().get(30, TimeUnit.SECONDS));
        assertThat(failed.getCause(), instanceOf(IllegalStateException.class));
    }

    @Test
    void delegatedTasksRunOnTheGivenExecutorNotOnTheLoop() throws Exception {
        int port = startEchoServer();
        taskPool = Executors.newFixedThreadPool(2, task -> new Thread(task, "tls-tasks-test"));
        Set<String> taskThreads = ConcurrentHashMap.newKeySet();
        Executor recording = command -> taskPool.execute(() -> {
            taskThreads.add(Thread.currentThread().getName());
            command.run();
        });
        Collecting handler = new Collecting();
        TlsConnection tls = connect("localhost", port, handler, recording);
        tls.handshake().get(30, TimeUnit.SECONDS);
        tls.write(ascii("after the handshake"));
        handler.expect(19).get(30, TimeUnit.SECONDS);
        assertThat(handler.text(), is("after the handshake"));
        assertThat("the handshake had delegated tasks", taskThreads.size(), greaterThan(0));
        assertThat(taskThreads, everyItem(is("tls-tasks-test")));
    }

    /**
     * A resume from another thread that comes just before the loop suspends (a body consumer
     * draining while the loop decides the body is full) must win: it runs after the suspend.
     */
    @Test
    void aResumeRequestedBeforeTheLoopSuspendsIsNotLost() throws Exception {
        Collecting handler = new Collecting();
        TlsConnection tls = handshakenWithEcho(handler);
        CountDownLatch loopHeld = new CountDownLatch(1);
        CountDownLatch resumeRequested = new CountDownLatch(1);
        tls.loop().execute(() -> {
            loopHeld.countDown();
            try {
                resumeRequested.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            tls.suspendReads(); // on the loop, after the resume below was requested
        });
        assertThat(loopHeld.await(10, TimeUnit.SECONDS), is(true));
        tls.resumeReads();
        resumeRequested.countDown();

        byte[] sent = "read after all".getBytes(StandardCharsets.US_ASCII);
        tls.write(ByteBuffer.wrap(sent));
        handler.expect(sent.length).get(10, TimeUnit.SECONDS);
        assertThat(handler.bytes(), is(sent));
    }

    @Test
    void recordsCutByEveryReadAreReassembled() throws Exception {
        group.close();
        group = new EventLoopGroup(1, "tls-test", 1000, System::nanoTime); // every record spans reads
        int port = startEchoServer();
        Collecting handler = new Collecting();
        TlsConnection tls = connect("localhost", port, handler);
        tls.handshake().get(30, TimeUnit.SECONDS);
        byte[] sent = new byte[200 * 1024];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 13 + 1);
        }
        tls.write(ByteBuffer.wrap(sent));
        handler.expect(sent.length).get(30, TimeUnit.SECONDS);
        assertThat(handler.bytes(), is(sent));
    }

    @Test
    void retainedPlaintextIsNotCopiedAndNeverOverwritten() throws Exception {
        int port = startEchoServer();
        Retaining handler = new Retaining(1000);
        SSLEngine engine = context.createSSLEngine("localhost", port);
        engine.setUseClientMode(true);
        TlsConnection tls = new TlsConnection(engine, protocol -> handler);
        group.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), Duration.ofSeconds(10),
                ChannelOptions.defaults(), tls);
        tls.handshake().get(30, TimeUnit.SECONDS);
        byte[] sent = new byte[1_000_000];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 7 + i / 1000);
        }
        tls.write(ByteBuffer.wrap(sent));
        handler.done.get(30, TimeUnit.SECONDS);
        assertThat("retained slices are views of the decrypted bytes, not copies",
                handler.copies, is(0));
        assertThat("later records did not overwrite kept slices", handler.concatenated(), is(sent));
    }

    /**
     * Keeps what it reads as retained slices, in whole units of {@code unit} bytes (the rest is
     * left for the next call), like an HTTP/2 client keeping DATA payloads for a subscriber.
     */
    private static final class Retaining implements ConnectionHandler {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private final int unit;
        private final List<ByteBuffer> kept = new ArrayList<>();
        private int bytes;
        volatile int copies;

        Retaining(int unit) {
            this.unit = unit;
        }

        @Override
        public void onOpen(Connection connection) {
        }

        @Override
        public void onRead(Connection connection, ByteBuffer input) {
            int take = input.remaining() / unit * unit;
            if (take == 0) {
                return;
            }
            ByteBuffer slice = connection.retain(input.slice(input.position(), take));
            input.position(input.position() + take);
            if (!slice.isReadOnly()) {
                copies++;
            }
            synchronized (kept) {
                kept.add(slice);
                bytes += take;
            }
            if (bytes >= 1_000_000) {
                done.complete(null);
            }
        }

        @Override
        public void onClosed(Connection connection, Throwable cause) {
        }

        byte[] concatenated() {
            synchronized (kept) {
                ByteBuffer all = ByteBuffer.allocate(bytes);
                kept.forEach(slice -> all.put(slice.duplicate()));
                return all.array();
            }
        }
    }

    private static ByteBuffer ascii(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * A TCP relay between the client and the TLS server that parses the client's TLS records
     * (RFC 8446 §5.1 header: type, version, length) and counts those of type application_data.
     */
    private static final class RecordCountingRelay implements AutoCloseable {
        private static final int APPLICATION_DATA = 23;
        private final ServerSocket listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private volatile int applicationData;

        RecordCountingRelay(int serverPort) throws IOException {
            Thread acceptor = new Thread(() -> {
                try {
                    Socket client = listener.accept();
                    Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
                    sockets.add(client);
                    sockets.add(server);
                    Thread back = new Thread(() -> copy(server, client), "relay-back");
                    back.setDaemon(true);
                    back.start();
                    forwardRecords(client, server);
                } catch (IOException ignored) {
                    // closed by the test
                }
            }, "relay");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        int applicationDataRecords() {
            return applicationData;
        }

        private void forwardRecords(Socket from, Socket to) throws IOException {
            DataInputStream in = new DataInputStream(from.getInputStream());
            OutputStream out = to.getOutputStream();
            byte[] header = new byte[5];
            while (true) {
                in.readFully(header);
                int length = (header[3] & 0xff) << 8 | (header[4] & 0xff);
                byte[] body = new byte[length];
                in.readFully(body);
                if (header[0] == APPLICATION_DATA) {
                    applicationData++; // one relay thread writes it
                }
                out.write(header);
                out.write(body);
                out.flush();
            }
        }

        private static void copy(Socket from, Socket to) {
            try {
                from.getInputStream().transferTo(to.getOutputStream());
            } catch (IOException ignored) {
                // closed by the test
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    /** Collects the plaintext it is given. */
    private static final class Collecting implements ConnectionHandler {
        final CompletableFuture<String> protocol = new CompletableFuture<>();
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private CompletableFuture<Void> full = new CompletableFuture<>(); // guarded by received
        private int expected = Integer.MAX_VALUE; // guarded by received

        /** Completes once {@code bytes} arrived in total. */
        CompletableFuture<Void> expect(int bytes) {
            synchronized (received) {
                expected = bytes;
                full = new CompletableFuture<>();
                if (received.size() >= bytes) {
                    full.complete(null);
                }
                return full;
            }
        }

        @Override
        public void onOpen(Connection connection) {
        }

        @Override
        public void onRead(Connection connection, ByteBuffer input) {
            byte[] bytes = new byte[input.remaining()];
            input.get(bytes);
            synchronized (received) {
                received.writeBytes(bytes);
                if (received.size() >= expected) {
                    full.complete(null);
                }
            }
        }

        @Override
        public void onClosed(Connection connection, Throwable cause) {
        }

        int size() {
            synchronized (received) {
                return received.size();
            }
        }

        String text() {
            return new String(bytes(), StandardCharsets.US_ASCII);
        }

        byte[] bytes() {
            synchronized (received) {
                return received.toByteArray();
            }
        }
    }
}
