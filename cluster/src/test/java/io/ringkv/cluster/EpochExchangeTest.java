package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.http.Headers;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The metadata epoch between two nodes over real sockets: {@link ReplicaClient} sends its node's
 * epoch on every request, covered by the proof; a receiver behind catches up, before it answers
 * an anti-entropy comparison, after it stored a replica write; a sender behind hears the receiver's newer epoch in the answer and catches up. Each
 * node's read through the metadata leader is a future the test completes.
 */
class EpochExchangeTest {

    private static final long WAIT_SECONDS = 10;
    private static final HybridLogicalClock CLOCK = new HybridLogicalClock(System::currentTimeMillis);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final List<AutoCloseable> resources = new ArrayList<>();

    /** One node's metadata: what it knows, and its reads through the leader, which the test answers. */
    private static final class Node {
        final KnownMetadata known = new KnownMetadata();
        final MetadataCatchUp catchUp = new MetadataCatchUp(known);
        final List<CompletableFuture<ClusterMetadata>> reads = new java.util.concurrent.CopyOnWriteArrayList<>();

        Node(long epoch) {
            known.offer(EpochGateTest.metadata(epoch));
            catchUp.attach(() -> {
                CompletableFuture<ClusterMetadata> read = new CompletableFuture<>();
                reads.add(read);
                return read;
            });
        }
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        http.close();
        clientExecutor.shutdownNow();
        assertThat(clientExecutor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    /** A comparison of anti-entropy follows the receiver's view of owners: it waits until the receiver caught up. */
    @Test
    void aReceiverBehindCatchesUpBeforeItAnswersADigestAndAnswersAtTheSendersEpoch() throws Exception {
        Node sender = new Node(6);
        Node receiver = new Node(5);
        AtomicReference<String> sentEpoch = new AtomicReference<>();
        ClusterNode peer = serve(receiver, new InMemoryStorageEngine(), sentEpoch);
        ReplicaClient client = client(sender);

        CompletableFuture<long[]> digest = client.digest(peer, 1);
        await(() -> !receiver.reads.isEmpty());
        assertThat("not answered while the receiver is behind", digest.isDone(), is(false));
        receiver.reads.getFirst().complete(EpochGateTest.metadata(6));
        digest.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(sentEpoch.get(), is("6"));
        assertThat(receiver.known.epoch(), is(6L));
        assertThat("the sender heard no newer epoch", sender.reads.isEmpty(), is(true));
    }

    /** A replica write is stored whoever owns the key now: at once, while the receiver catches up. */
    @Test
    void aReceiverBehindStoresAReplicaWriteAtOnceAndCatchesUp() throws Exception {
        Node sender = new Node(6);
        Node receiver = new Node(5);
        InMemoryStorageEngine engine = new InMemoryStorageEngine();
        ClusterNode peer = serve(receiver, engine, new AtomicReference<>());
        ReplicaClient client = client(sender);

        client.write(peer, utf8("k"), Record.value(CLOCK.now(), utf8("v"))).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(engine.get(utf8("k")).isPresent(), is(true));
        await(() -> !receiver.reads.isEmpty());
        receiver.reads.getFirst().complete(EpochGateTest.metadata(6));
        assertThat(receiver.known.epoch(), is(6L));
        assertThat(receiver.catchUp.fromRequests(), is(1L));
    }

    @Test
    void aSenderBehindHearsTheReceiversEpochInTheAnswerAndCatchesUp() throws Exception {
        Node sender = new Node(2);
        Node receiver = new Node(4);
        InMemoryStorageEngine engine = new InMemoryStorageEngine();
        ClusterNode peer = serve(receiver, engine, new AtomicReference<>());
        ReplicaClient client = client(sender);

        client.write(peer, utf8("k"), Record.value(CLOCK.now(), utf8("v"))).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat("stored at once: an older sender's replica write is still a replica write",
                engine.get(utf8("k")).isPresent(), is(true));
        await(() -> !sender.reads.isEmpty());
        sender.reads.getFirst().complete(EpochGateTest.metadata(4));
        assertThat(sender.known.epoch(), is(4L));
        assertThat(sender.catchUp.fromAnswers(), is(1L));
        assertThat(receiver.reads.isEmpty(), is(true));
    }

    /** The epoch is one of the proof's fields: changed or removed after signing, the request is refused. */
    @Test
    void aTamperedOrStrippedEpochFailsTheProof() {
        InternalAuth auth = TestAuth.auth();
        String target = InternalProtocol.DIGEST_PATH + "?" + InternalProtocol.RF_PARAM + "=3";
        Map<String, String> signed = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        signed.putAll(auth.sign(TestAuth.SELF, "GET", target, Map.of(InternalProtocol.EPOCH_HEADER, "7"), new byte[0]));
        assertThat(auth.check(request(target, signed)), is(InternalAuth.Check.OK));
        signed.put(InternalProtocol.EPOCH_HEADER, "8");
        assertThat(auth.check(request(target, signed)), is(InternalAuth.Check.FORBIDDEN));
        signed.remove(InternalProtocol.EPOCH_HEADER);
        assertThat(auth.check(request(target, signed)), is(InternalAuth.Check.FORBIDDEN));
    }

    private static Request request(String target, Map<String, String> fields) {
        Headers headers = Headers.of();
        fields.forEach(headers::add);
        int query = target.indexOf('?');
        return new Request("GET", target.substring(0, query), target.substring(query + 1), headers, new byte[0],
                new InetSocketAddress("127.0.0.1", 40000), Protocol.HTTP_1_1);
    }

    private ReplicaClient client(Node node) {
        return new ReplicaClient(http, Duration.ofSeconds(5), TestAuth.auth(), new TopologyWatch(TestAuth.TOPOLOGY),
                InterNodeTransport.PEER_BODY_BYTES_DEFAULT, node.catchUp);
    }

    /** A peer with {@code node}'s metadata, noting the epoch each request carried. */
    private ClusterNode serve(Node node, InMemoryStorageEngine engine, AtomicReference<String> sentEpoch) throws Exception {
        ServerHarness server = ServerHarness.startFor(url -> {
            InternalAuth auth = new InternalAuth(TestAuth.SECRET, ClusterNode.parse(url).id(), TestAuth.TOPOLOGY,
                    System::currentTimeMillis);
            InternalApiHandler handler = new InternalApiHandler(engine, CLOCK, auth, new TopologyWatch(TestAuth.TOPOLOGY),
                    null, TestAuth.skew(CLOCK), new PaxosAcceptor(engine), new EpochGate(node.catchUp, Duration.ofSeconds(2)),
                    Runnable::run, Runnable::run);
            return request -> {
                request.headers().first(InternalProtocol.EPOCH_HEADER).ifPresent(sentEpoch::set);
                return handler.handle(request);
            };
        });
        resources.add(server);
        return ClusterNode.parse(server.url());
    }

    /** Polls a condition the other threads make true; the bound only ends a broken test. */
    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat("reached within " + WAIT_SECONDS + " s", System.nanoTime() < deadline, is(true));
            Thread.sleep(10);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
