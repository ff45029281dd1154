package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The node-to-node protocol over real sockets on 127.0.0.1: {@link ReplicaClient} on the node's
 * default transport ({@link io.ringkv.cluster.peer.H2PeerTransport}, h2c by prior knowledge; one
 * test on an {@link HttpClient} over HTTP/1.1), against {@link InternalApiHandler}s served by real
 * HTTP servers.
 */
class RemoteReplicaTest {

    private static final long WAIT_SECONDS = 10;
    private static final HybridLogicalClock CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final ReplicaClient client = TestAuth.client(http, Duration.ofSeconds(2));
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        http.close();
        clientExecutor.shutdownNow();
        assertThat(clientExecutor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    @Test
    void writesAndReadsRecordsWithTimestampsAndTombstones() throws Exception {
        StorageEngine engine = new InMemoryStorageEngine();
        ClusterNode node = serve(engine);
        byte[] key = {0, (byte) 0xFE, '+', '%', '\n'};
        await(client.write(node, key, Record.value(42, new byte[] {(byte) 0xFF, 0, '\r'})));
        assertThat(engine.get(key), is(Optional.of(Record.value(42, new byte[] {(byte) 0xFF, 0, '\r'}))));
        assertThat(await(client.read(node, key)), is(Optional.of(Record.value(42, new byte[] {(byte) 0xFF, 0, '\r'}))));
        await(client.write(node, key, Record.tombstone(43)));
        assertThat(await(client.read(node, key)), is(Optional.of(Record.tombstone(43))));
        assertThat(await(client.read(node, utf8("absent"))), is(Optional.empty()));
    }

    /** The one-record path carries the expiry both ways (hint replay and repair of a large value use it). */
    @Test
    void writesAndReadsAnExpiringRecordWithItsExpiry() throws Exception {
        StorageEngine engine = new InMemoryStorageEngine();
        ClusterNode node = serve(engine);
        Record expiring = Record.expiring(42, utf8("v"), 1_700_000_002_000L);
        await(client.write(node, utf8("k"), expiring));
        assertThat(engine.get(utf8("k")), is(Optional.of(expiring)));
        assertThat(await(client.read(node, utf8("k"))), is(Optional.of(expiring)));
    }

    @Test
    void aWriteOlderThanTheStoredRecordLeavesItAndSaysHowFreshItIs() throws Exception {
        StorageEngine engine = new InMemoryStorageEngine();
        ClusterNode node = serve(engine);
        byte[] key = utf8("kept");
        assertThat(await(client.write(node, key, Record.value(50, utf8("newer")))), is(java.util.OptionalLong.empty()));
        assertThat(await(client.write(node, key, Record.value(40, utf8("older")))), is(java.util.OptionalLong.of(50)));
        assertThat(await(client.write(node, key, Record.value(50, utf8("newer")))), is(java.util.OptionalLong.empty()));
        assertThat(engine.get(key), is(Optional.of(Record.value(50, utf8("newer")))));
    }

    @Test
    void aWrongClusterSecretIsAFailedReplyNotAnAnswer() throws Exception {
        ClusterNode node = serve(new InMemoryStorageEngine());
        ReplicaClient impostor = new ReplicaClient(http, Duration.ofSeconds(2),
                TestAuth.auth(ClusterSecret.of("a guessed secret of some length"), TestAuth.TOPOLOGY), new TopologyWatch(TestAuth.TOPOLOGY));
        Throwable cause = failure(impostor.read(node, utf8("k")));
        assertThat(cause, instanceOf(ReplicaException.class));
        assertThat(cause.getMessage(), containsString("status 403"));
    }

    @Test
    void aStoppedNodeFailsTheRequestWithAConnectionError() throws Exception {
        ClusterNode stopped;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            stopped = ClusterNode.parse("http://127.0.0.1:" + socket.getLocalPort());
        }
        assertThat(causes(failure(client.read(stopped, utf8("k")))), hasItem(instanceOf(ConnectException.class)));
    }

    @Test
    void aSilentNodeCostsAtMostTheRequestTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            // The kernel completes the handshake; nobody ever answers.
            ClusterNode node = ClusterNode.parse("http://127.0.0.1:" + silent.getLocalPort());
            // The timeout also covers the response head, which a loaded machine may take a while to
            // deliver; what this test proves is that the stall after the first frame ends the read.
            ReplicaClient impatient = TestAuth.client(http, Duration.ofSeconds(3));
            Throwable failure = failure(impatient.write(node, utf8("k"), Record.value(1, utf8("v"))));
            // Over h2c (the default) the connection's PING (after 1 s without a frame, unanswered for
            // the client's 1 s request timeout) may give up on the silent peer first.
            assertThat(failure.toString(), failure instanceof HttpTimeoutException
                    || String.valueOf(failure.getMessage()).contains("did not answer PING"), is(true));
        }
    }

    @Test
    void coordinatesAcrossALocalAndTwoRemoteReplicas() throws Exception {
        StorageEngine local = new InMemoryStorageEngine();
        StorageEngine remoteA = new InMemoryStorageEngine();
        StorageEngine remoteB = new InMemoryStorageEngine();
        ServerHarness serverB = ServerHarness.startFor(url -> TestAuth.handler(url, remoteB, CLOCK));
        ClusterNode a = serve(remoteA);
        String self = "http://127.0.0.1:1"; // never contacted: the local replica is called directly
        ClusterNodes topology = ClusterNodes.of(List.of(self, a.id(), serverB.url()), self);
        Coordinator coordinator = new Coordinator(topology,
                Coordinator.replicasFor(topology, new LocalReplica(topology.self(), local), client),
                CLOCK, CoordinatorSettings.withDefaults(clientExecutor));

        byte[] key = utf8("shared");
        WriteOutcome put = await(coordinator.put(key, utf8("v1"), new ReplicationParams(3, 3)));
        long timestamp = ((WriteOutcome.Acknowledged) put).timestamp();
        for (StorageEngine engine : List.of(local, remoteA, remoteB)) {
            assertThat(engine.get(key), is(Optional.of(Record.value(timestamp, utf8("v1")))));
        }

        serverB.close();
        assertThat(((ReadOutcome.Found) await(coordinator.get(key, ReplicationParams.defaultFor(3)))).value(), equalTo(utf8("v1")));
        assertThat(await(coordinator.delete(key, ReplicationParams.defaultFor(3))), instanceOf(WriteOutcome.Acknowledged.class));
        assertThat(await(coordinator.get(key, ReplicationParams.defaultFor(3))), instanceOf(ReadOutcome.NotFound.class));
        assertThat(await(coordinator.put(key, utf8("v2"), new ReplicationParams(3, 3))), instanceOf(NotEnoughReplicas.class));
    }

    @Test
    void mergesARangeAcrossTheLocalEngineAndRemoteStreams() throws Exception {
        StorageEngine local = new InMemoryStorageEngine();
        StorageEngine remote = new InMemoryStorageEngine();
        local.apply(utf8("a"), Record.value(1, utf8("a-old")));
        remote.apply(utf8("a"), Record.value(2, utf8("a-new")));
        local.apply(utf8("b"), Record.value(5, utf8("b")));
        remote.apply(utf8("b"), Record.tombstone(6));
        remote.apply(utf8("c"), Record.value(1, utf8("c")));
        local.apply(utf8("z"), Record.value(1, utf8("beyond the end")));
        local.apply(utf8("e"), Record.value(1, utf8("older than the expired record")));
        remote.apply(utf8("e"), Record.expiring(2, utf8("expired"), 1_700_000_000_000L - 1));
        for (int i = 0; i < 5_000; i++) { // more than one chunk of the internal stream
            remote.apply(utf8(String.format("d%05d", i)), Record.value(1, new byte[20]));
        }
        ClusterNode remoteNode = serve(remote);
        String self = "http://127.0.0.1:1";
        ClusterRange range = new ClusterRange(ClusterNodes.of(List.of(self, remoteNode.id()), self), local, client,
                CLOCK::physicalMillis);

        List<String> keys = new ArrayList<>();
        try (ClusterRangeMerge merge = await(range.open(utf8("a"), utf8("z")))) {
            for (ByteBuffer chunk = merge.next(); chunk != null; chunk = merge.next()) {
                String text = StandardCharsets.UTF_8.decode(chunk).toString();
                keys.add(text.length() > 12 ? text.substring(0, 6) : text);
            }
        }
        assertThat(keys.subList(0, 3), contains("a\na-new", "c\nc", "d00000"));
        assertThat(keys.size(), is(2 + 5_000));
    }

    @Test
    void refusesARangeWhenANodeIsUnreachable() throws Exception {
        ClusterNode stopped;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            stopped = ClusterNode.parse("http://127.0.0.1:" + socket.getLocalPort());
        }
        ClusterNode alive = serve(new InMemoryStorageEngine());
        String self = "http://127.0.0.1:1";
        ClusterRange range = new ClusterRange(ClusterNodes.of(List.of(self, alive.id(), stopped.id()), self),
                new InMemoryStorageEngine(), client, CLOCK::physicalMillis);
        Throwable cause = failure(range.open(utf8("a"), null));
        assertThat(cause, instanceOf(ReplicaException.class));
        assertThat(cause.getMessage(), containsString(stopped.id()));
    }

    @Test
    void aRangeStreamThatStallsMidBodyFailsTheReadInsteadOfHanging() throws Exception {
        try (ServerSocket stalling = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread peer = Thread.ofPlatform().name("stalling-peer").start(() -> answerThenStall(stalling));
            ClusterNode node = ClusterNode.parse("http://127.0.0.1:" + stalling.getLocalPort());
            // The timeout also covers the response head, which a loaded machine may take a while to
            // deliver; what this test proves is that the stall after the first frame ends the read.
            // The stalling peer speaks HTTP/1.1 (a hand-written answer), so this client does too.
            HttpClient h1 = InterNodeHttpClients.create(InterNodeTransport.of(InterNodeClient.RING, InterNodeProtocol.H1),
                    clientExecutor, Duration.ofSeconds(2));
            resources.add(h1::close);
            ReplicaClient impatient = TestAuth.client(new io.ringkv.cluster.peer.HttpClientTransport(h1), Duration.ofSeconds(3));
            try (RecordStream stream = await(impatient.openRange(node, utf8("a"), null))) {
                assertThat(stream.next(), is(true)); // the one complete frame the peer sent
                assertThat(stream.key(), equalTo(utf8("a")));
                IOException e = assertThrows(IOException.class, stream::next);
                assertThat(causes(e), hasItem(instanceOf(HttpTimeoutException.class)));
            } finally {
                stalling.close();
                peer.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            }
        }
    }

    /**
     * Sends a response head and one signed segment holding one frame, as a node would (so the
     * answer passes its proof), then neither writes nor closes until the test ends.
     */
    private static void answerThenStall(ServerSocket server) {
        try (java.net.Socket socket = server.accept()) {
            java.io.InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) { // read the request head up to CRLF CRLF
                int b = in.read();
                if (b == -1) {
                    return;
                }
                head.append((char) b);
            }
            String requestProof = head.toString().lines().filter(line -> line.toLowerCase(java.util.Locale.ROOT).startsWith("x-ringkv-auth:"))
                    .map(line -> line.substring(line.indexOf(':') + 1).strip()).findFirst().orElseThrow();
            ByteBuffer frame = ByteBuffer.allocate(RecordFrames.frameBytes(utf8("a"), Record.value(1, utf8("v"))));
            RecordFrames.write(frame, utf8("a"), Record.value(1, utf8("v")));
            io.ringkv.http.server.ChunkSource oneFrame = new io.ringkv.http.server.ChunkSource() {
                @Override
                public ByteBuffer next() {
                    return frame.flip();
                }

                @Override
                public void close() {
                }
            };
            io.ringkv.http.server.Response signed = TestAuth.auth().answers().sign(requestProof,
                    io.ringkv.http.server.Response.streamed(200, oneFrame));
            ByteBuffer segment = ((io.ringkv.http.server.ResponseBody.Streamed) signed.body()).source().next();
            java.io.OutputStream out = socket.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n" + InternalAuth.AUTH_HEADER + ": "
                    + signed.headers().first(InternalAuth.AUTH_HEADER).orElseThrow() + "\r\n\r\n"
                    + Integer.toHexString(segment.remaining()) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(segment.array(), segment.arrayOffset() + segment.position(), segment.remaining());
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            while (in.read() != -1) {
                // hold the connection open, silent, until the client or the test closes it
            }
        } catch (IOException e) {
            // The test closed the server socket or the client gave up: the peer's job is done.
        }
    }

    private ClusterNode serve(StorageEngine engine) throws IOException {
        ServerHarness server = ServerHarness.startFor(url -> TestAuth.handler(url, engine, CLOCK));
        resources.add(server);
        return ClusterNode.parse(server.url());
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static Throwable failure(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static List<Throwable> causes(Throwable t) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = t; cause != null; cause = cause.getCause()) {
            chain.add(cause);
        }
        return chain;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
