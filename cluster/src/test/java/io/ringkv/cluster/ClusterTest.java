package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.StorageEngine;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three in-process nodes wired by {@link Cluster}, talking over real sockets on 127.0.0.1. */
class ClusterTest {

    private static final long WAIT_SECONDS = 10;
    private static final int NODES = 3;

    private final ExecutorService handlerExecutor = Executors.newFixedThreadPool(2);
    private final List<ServerHarness> servers = new ArrayList<>();
    private final List<StorageEngine> engines = new ArrayList<>();
    private final List<Cluster> clusters = new ArrayList<>();
    private final List<List<String>> seen = new ArrayList<>();
    /** Every node handles internal requests only once this completes (it is, unless a test holds it). */
    private volatile CompletableFuture<Void> internalGate = CompletableFuture.completedFuture(null);

    @AfterEach
    void stopNodes() throws Exception {
        clusters.forEach(Cluster::close);
        for (ServerHarness server : servers) {
            server.close();
        }
        handlerExecutor.shutdownNow();
        assertThat(handlerExecutor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    @Test
    void anyNodeCoordinatesAndEveryNodeSeesTheMergedRange() throws Exception {
        startNodes(TestAuth.SECRET);
        byte[] key = utf8("user:1");
        WriteOutcome put = await(clusters.get(0).coordinator().put(key, utf8("alice"), ReplicationParams.parse("2/3", NODES)));
        assertThat(put, instanceOf(WriteOutcome.Acknowledged.class));
        await(clusters.get(1).coordinator().put(utf8("user:2"), utf8("bob"), ReplicationParams.parse("1/1", NODES)));
        await(clusters.get(2).coordinator().delete(utf8("user:3"), ReplicationParams.parse(null, NODES)));

        ReadOutcome read = await(clusters.get(2).coordinator().get(key, ReplicationParams.parse("2/3", NODES)));
        assertThat(((ReadOutcome.Found) read).value(), equalTo(utf8("alice")));
        for (Cluster cluster : clusters) {
            assertThat(drain(await(cluster.range().open(utf8("user:"), null))), contains("user:1\nalice", "user:2\nbob"));
        }
    }

    @Test
    void keyReplicasShowWhatEachNodeHoldsInReplicaOrderWithoutRepairing() throws Exception {
        startNodes(TestAuth.SECRET);
        byte[] key = utf8("looked-at");
        List<ClusterNode> order = new RendezvousPlacement(clusters.get(0).topology()).order(key);
        // Only the primary gets the value (1/1); the others hold nothing.
        await(clusters.get(0).coordinator().put(key, utf8("v1"), ReplicationParams.parse("1/1", NODES)));
        List<KeyReplicas.Copy> copies = await(clusters.get(0).keyReplicas().read(key));
        assertThat(copies.stream().map(KeyReplicas.Copy::node).toList(), equalTo(order));
        assertThat(copies.stream().map(KeyReplicas.Copy::rank).toList(), contains(1, 2, 3));
        assertThat(copies.get(0).record().orElseThrow().value(), equalTo(utf8("v1")));
        assertThat(copies.get(1).record().isPresent(), is(false));
        assertThat(copies.get(2).record().isPresent(), is(false));
        // Looking again changed nothing: a coordinated GET would have repaired the other two.
        assertThat(await(clusters.get(1).keyReplicas().read(key)).get(1).record().isPresent(), is(false));

        await(clusters.get(2).coordinator().delete(key, ReplicationParams.parse("3/3", NODES)));
        List<KeyReplicas.Copy> deleted = await(clusters.get(1).keyReplicas().read(key));
        long timestamp = deleted.get(0).record().orElseThrow().timestamp();
        for (KeyReplicas.Copy copy : deleted) {
            assertThat(copy.node() + " holds the tombstone", copy.record().orElseThrow().tombstone(), is(true));
            assertThat(copy.record().orElseThrow().timestamp(), is(timestamp));
        }

        int stopped = clusters.get(0).topology().all().indexOf(order.get(2));
        int asking = (stopped + 1) % NODES;
        servers.get(stopped).close();
        List<KeyReplicas.Copy> oneDown = await(clusters.get(asking).keyReplicas().read(key));
        assertThat(oneDown.get(2).failed(), is(true));
        assertThat(oneDown.get(2).failure(), org.hamcrest.Matchers.containsString("Exception"));
        assertThat(oneDown.get(0).failed() || oneDown.get(1).failed(), is(false));
    }

    @Test
    void publicGetsReachPeersButNeverTheInternalPlane() throws Exception {
        startNodes(TestAuth.SECRET);
        ClusterNode peer = clusters.get(0).topology().others().get(0);
        // The harness serves only the internal handler: any answer at all proves the request went out.
        int status = await(clusters.get(0).getPublic(peer, "/v0/status", java.time.Duration.ofSeconds(2))).statusCode();
        assertThat(status >= 400, is(true));
        java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> await(clusters.get(0).getPublic(peer, InternalProtocol.DIGEST_PATH, java.time.Duration.ofSeconds(2))));
        assertThat(refused.getCause(), instanceOf(IllegalArgumentException.class));
        org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                () -> await(clusters.get(0).getPublic(ClusterNode.parse("http://127.0.0.1:9"), "/v0/status",
                        java.time.Duration.ofSeconds(2))));
    }

    @Test
    void replicaCallsShareOneH2cConnectionPerPeerByDefault() throws Exception {
        // Unbatched, so that each write is a request of its own (PeerWriteBatcherTest covers batches).
        startNodes(TestAuth.SECRET, InterNodeTransport.defaults().withBatchesPerPeer(0));
        List<CompletableFuture<WriteOutcome>> writes = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            writes.add(clusters.get(0).coordinator().put(utf8("key:" + i), utf8("v" + i), ReplicationParams.parse("3/3", NODES)));
        }
        for (CompletableFuture<WriteOutcome> write : writes) {
            assertThat(await(write), instanceOf(WriteOutcome.Acknowledged.class));
        }
        // Node 0's replica calls reached each peer as HTTP/2 streams from one source port each.
        for (int peer = 1; peer < NODES; peer++) {
            List<String> puts = seen.get(peer).stream().filter(call -> call.startsWith("PUT ")).toList();
            assertThat(puts.size(), is(200));
            List<String> distinct = puts.stream().distinct().toList();
            assertThat(distinct.size(), is(1));
            assertThat(distinct.get(0), startsWith("PUT HTTP_2 from "));
        }
    }

    /**
     * The last remote reply decides on the network thread that read it: no hand-off to a pool
     * first. With the default transport that thread is one of the node's server loops.
     */
    @Test
    void aRemoteReplyCompletesTheOperationWithoutAThreadHop() throws Exception {
        startNodes(TestAuth.SECRET, InterNodeTransport.defaults());
        // Peers answer only after the continuation is attached: else a fast reply could complete
        // the operation first, and the continuation would run on this thread.
        internalGate = new CompletableFuture<>();
        CompletableFuture<String> thread = clusters.get(0).coordinator().put(utf8("hop"), utf8("v"), ReplicationParams.parse("3/3", NODES))
                .thenApply(outcome -> Thread.currentThread().getName());
        internalGate.complete(null);
        assertThat(await(thread), startsWith("ringkv-http-loop-"));
    }

    /**
     * A write a coordinator starts on one of its server's loops (as a client's request handled on
     * the loop does) goes to the peers on that loop's own connections and is decided there: the
     * reply is read and the outcome completed on the very thread that asked, for each loop.
     */
    @Test
    void aWriteStartedOnALoopIsDecidedOnThatLoop() throws Exception {
        startNodes(TestAuth.SECRET, InterNodeTransport.defaults());
        List<io.ringkv.net.EventLoop> loops = servers.get(0).loopGroup().loops();
        for (io.ringkv.net.EventLoop loop : loops) {
            CompletableFuture<CompletableFuture<String>> started = new CompletableFuture<>();
            loop.execute(() -> started.complete(clusters.get(0).coordinator()
                    .put(utf8("on-" + loop), utf8("v"), ReplicationParams.parse("3/3", NODES))
                    .thenApply(outcome -> outcome instanceof WriteOutcome.Acknowledged ? Thread.currentThread().getName()
                            : "not acknowledged: " + outcome)));
            // The loop's name, read on the loop (a thenApply after supplyAsync may run on this thread when the supply is done first).
            String asker = await(CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), loop));
            assertThat(await(await(started)), is(asker));
        }
    }

    /** With {@code --internode-client RING}, the same reply completes on our client's network thread. */
    @Test
    void withTheRingClientARemoteReplyCompletesOnItsNetworkThread() throws Exception {
        startNodes(TestAuth.SECRET, InterNodeTransport.of(InterNodeClient.RING, InterNodeProtocol.H2));
        internalGate = new CompletableFuture<>();
        CompletableFuture<String> thread = clusters.get(0).coordinator().put(utf8("hop"), utf8("v"), ReplicationParams.parse("3/3", NODES))
                .thenApply(outcome -> Thread.currentThread().getName());
        internalGate.complete(null);
        assertThat(await(thread), startsWith("ringkv-http-client-"));
    }

    @Test
    void h1KeepsOneCallPerConnectionAtATime() throws Exception {
        startNodes(TestAuth.SECRET, InterNodeTransport.of(InterNodeClient.RING, InterNodeProtocol.H1).withBatchesPerPeer(0));
        List<CompletableFuture<WriteOutcome>> writes = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            writes.add(clusters.get(0).coordinator().put(utf8("key:" + i), utf8("v" + i), ReplicationParams.parse("3/3", NODES)));
        }
        for (CompletableFuture<WriteOutcome> write : writes) {
            assertThat(await(write), instanceOf(WriteOutcome.Acknowledged.class));
        }
        for (int peer = 1; peer < NODES; peer++) {
            List<String> puts = seen.get(peer).stream().filter(call -> call.startsWith("PUT ")).toList();
            assertThat(puts.size(), is(50));
            assertThat(puts.stream().allMatch(call -> call.startsWith("PUT HTTP_1_1 from ")), is(true));
        }
    }

    @Test
    void theJdkClientCannotBeAskedForPriorKnowledgeH2c() {
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> InterNodeTransport.of(InterNodeClient.JDK, InterNodeProtocol.H2));
        assertThat(refused.getMessage(), org.hamcrest.Matchers.containsString("use the H1 protocol"));
    }

    @Test
    void aMultiNodeClusterWithoutASecretDoesNotStart() {
        ClusterSettings settings = ClusterSettings.of(List.of("http://127.0.0.1:1", "http://127.0.0.1:2"), "http://127.0.0.1:1");
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Cluster.start(settings, new InMemoryStorageEngine(), HybridLogicalClock.systemClock(), handlerExecutor));
        assertThat(refused.getMessage(), org.hamcrest.Matchers.containsString("needs a cluster secret"));
    }

    @Test
    void aOneNodeClusterServesNoInternalEndpoints() throws Exception {
        try (Cluster alone = Cluster.start(ClusterSettings.of(List.of("http://127.0.0.1:1"), "http://127.0.0.1:1"),
                new InMemoryStorageEngine(), HybridLogicalClock.systemClock(), handlerExecutor)) {
            assertThat(alone.internalHandler() == null, is(true));
        }
    }

    @Test
    void theInterNodeClientRunsOnNamedBoundedThreads() throws Exception {
        ExecutorService executor = InterNodeHttpClients.newExecutor(1);
        try {
            String name = CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), executor).get(WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(name, startsWith("ringkv-internode-"));
            assertThat(((java.util.concurrent.ThreadPoolExecutor) executor).getMaximumPoolSize(), is(1));
            assertThat(((java.util.concurrent.ThreadPoolExecutor) executor).getQueue().remainingCapacity(),
                    is(InterNodeHttpClients.EXECUTOR_QUEUE_MAX));
        } finally {
            executor.shutdownNow();
        }
    }

    private void startNodes(ClusterSecret secret) throws Exception {
        startNodes(secret, InterNodeTransport.defaults());
    }

    /** Also records, per node, each internal request as "METHOD PROTOCOL from PORT" in {@link #seen}. */
    private void startNodes(ClusterSecret secret, InterNodeTransport transport) throws Exception {
        List<AtomicReference<HttpHandler>> handlers = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            AtomicReference<HttpHandler> handler = new AtomicReference<>();
            List<String> calls = java.util.Collections.synchronizedList(new ArrayList<>());
            seen.add(calls);
            ServerHarness server = ServerHarness.start(request -> {
                calls.add(request.method() + " " + request.protocol() + " from " + request.remote().getPort());
                return internalGate.thenCompose(open -> {
                    try {
                        return handler.get().handle(request);
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                });
            });
            servers.add(server);
            handlers.add(handler);
            urls.add(server.url());
        }
        for (int i = 0; i < NODES; i++) {
            StorageEngine engine = new InMemoryStorageEngine();
            engines.add(engine);
            ClusterSettings settings = new ClusterSettings(urls, urls.get(i), ReplicaClient.DEFAULT_REQUEST_TIMEOUT,
                    CoordinatorSettings.DEFAULT_DEADLINE, 1, secret, transport, HintSettings.defaults(),
                    AntiEntropySettings.defaults(), ClusterSettings.DEFAULT_TOMBSTONE_GRACE,
                    ClusterSettings.DEFAULT_MAX_CLOCK_OFFSET, CoordinatorSettings.DEFAULT_READ_SPARE_DELAY);
            // As a node does: the peer connections live on the loops of the node's own server.
            Cluster cluster = Cluster.start(settings, null, null, engine, HybridLogicalClock.systemClock(), handlerExecutor,
                    handlerExecutor, ReplicaCallListener.NONE, servers.get(i).loopGroup());
            clusters.add(cluster);
            handlers.get(i).set(cluster.internalHandler());
        }
    }

    private static List<String> drain(ClusterRangeMerge merge) throws Exception {
        List<String> records = new ArrayList<>();
        try (merge) {
            for (ByteBuffer chunk = merge.next(); chunk != null; chunk = merge.next()) {
                records.add(StandardCharsets.UTF_8.decode(chunk).toString());
            }
        }
        return records;
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
