package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RecordPusher} against a real peer (our server, {@link InternalApiHandler}) whose request
 * bodies are limited as a node's {@code --max-body} limits them, over the inter-node client.
 */
@Timeout(60)
class RecordPusherTest {

    private static final int PEER_BODY_MAX = 64 * 1024;
    private static final HybridLogicalClock PEER_CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final StorageEngine peerEngine = new InMemoryStorageEngine();
    /** Each request the peer took: its path and body size. */
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<String> refused = new CopyOnWriteArrayList<>();
    /** The status of each refusal {@link #refused} names, in the same order. */
    private final List<Integer> refusedStatuses = new CopyOnWriteArrayList<>();
    private int taken;
    private ServerHarness peer;

    private record Request(String path, int bodyBytes) {
    }

    @AfterEach
    void closeEverything() throws Exception {
        if (peer != null) {
            peer.close();
        }
        http.close();
        clientExecutor.shutdownNow();
        assertThat(clientExecutor.awaitTermination(10, TimeUnit.SECONDS), is(true));
    }

    private ClusterNode servePeer() throws Exception {
        peer = ServerHarness.startFor(url -> {
            HttpHandler internal = TestAuth.handler(url, peerEngine, PEER_CLOCK);
            return request -> {
                requests.add(new Request(request.path(), request.body().length));
                return internal.handle(request);
            };
        }, PEER_BODY_MAX);
        return ClusterNode.parse(peer.url());
    }

    /** A client that takes its peers to accept bodies of up to {@code peerBodyBytesMax}. */
    private ReplicaClient client(long peerBodyBytesMax) {
        return new ReplicaClient(http, Duration.ofSeconds(2), TestAuth.auth(), new TopologyWatch(TestAuth.TOPOLOGY),
                peerBodyBytesMax);
    }

    private RecordPusher pusher(ReplicaClient client, ClusterNode node, int inFlight) {
        return new RecordPusher(client, node, 256, inFlight, Duration.ofSeconds(5), -1, new RecordPusher.Outcomes() {
            @Override
            public void taken(int records) {
                taken += records;
            }

            @Override
            public void refused(byte[] key, Record record, RecordsRefusedException why) {
                refusedStatuses.add(why.status());
                refused.add(new String(key, StandardCharsets.UTF_8));
            }
        });
    }

    /**
     * 2 KB records and, amid them, one whose value is exactly the peer's body limit: every batch
     * stays within the limit, the large record travels alone in a batch of its own (its frame and
     * the end marker beyond the limit, which a node takes), and the peer takes everything.
     */
    @ParameterizedTest(name = "{0} batch(es) in flight")
    @ValueSource(ints = {1, 3})
    void batchesStayWithinThePeersBodyLimitAndARecordAtTheLimitTravelsAlone(int inFlight) throws Exception {
        ClusterNode node = servePeer();
        RecordPusher pusher = pusher(client(PEER_BODY_MAX), node, inFlight);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            String key = String.format("k%03d", i);
            pusher.add(utf8(key), Record.value(10 + i, new byte[i == 50 ? PEER_BODY_MAX : 2000]));
            keys.add(key);
        }
        assertThat(pusher.finish(), is(100));

        assertThat(taken, is(100));
        assertThat(refused, is(List.of()));
        for (int i = 0; i < 100; i++) {
            Optional<Record> held = peerEngine.get(utf8(keys.get(i)));
            assertThat(keys.get(i), held.map(Record::timestamp), is(Optional.of(10L + i)));
        }
        int aloneBytes = Integer.BYTES + RecordFrames.frameBytes(utf8("k050"), Record.value(60, new byte[PEER_BODY_MAX]));
        assertThat(requests.stream().filter(request -> request.bodyBytes() != aloneBytes).map(Request::bodyBytes).toList(),
                everyItem(lessThanOrEqualTo(PEER_BODY_MAX)));
        assertThat(requests, hasItem(new Request(InternalProtocol.WRITES_PATH, aloneBytes)));
        assertThat(requests.stream().map(Request::path).distinct().toList(), contains(InternalProtocol.WRITES_PATH));
        assertThat("requests: batches of about 32 records, and the large one", requests.size(), is(5));
    }

    /**
     * A client that takes the peer to accept more than it does (nodes started with different
     * {@code --max-body}): the batches are refused, sent again a record at a time, and only the
     * record larger than the peer's limit stays out.
     */
    @ParameterizedTest(name = "{0} batch(es) in flight")
    @ValueSource(ints = {1, 3})
    void aRecordThePeerRefusesCostsOnlyItself(int inFlight) throws Exception {
        ClusterNode node = servePeer();
        RecordPusher pusher = pusher(client(16L << 20), node, inFlight);
        for (int i = 0; i < 20; i++) {
            pusher.add(utf8(String.format("k%03d", i)), Record.value(10 + i, new byte[i == 7 ? 100_000 : 10_000]));
        }
        assertThat(pusher.finish(), is(19));

        assertThat(refused, contains("k007"));
        assertThat(refusedStatuses, contains(413));
        assertThat(taken, is(19));
        for (int i = 0; i < 20; i++) {
            assertThat(peerEngine.get(utf8(String.format("k%03d", i))).isPresent(), is(i != 7));
        }
    }

    /**
     * A record stamped further ahead of the peer's clock than the bound, amid others: the peer's
     * answer refuses it alone, it is reported refused (400), and the batch's other records arrive
     * without being sent again.
     */
    @ParameterizedTest(name = "{0} batch(es) in flight")
    @ValueSource(ints = {1, 3})
    void aRecordStampedBeyondThePeersClockBoundIsRefusedAloneInItsBatch(int inFlight) throws Exception {
        ClusterNode node = servePeer();
        RecordPusher pusher = pusher(client(PEER_BODY_MAX), node, inFlight);
        long ahead = HybridLogicalClock.timestampOf(1_700_000_000_000L + 3_600_000, 0);
        for (int i = 0; i < 5; i++) {
            pusher.add(utf8("k" + i), Record.value(i == 2 ? ahead : 10 + i, utf8("v" + i)));
        }
        assertThat(pusher.finish(), is(4));

        assertThat(refused, contains("k2"));
        assertThat(refusedStatuses, contains(400));
        assertThat(taken, is(4));
        assertThat(peerEngine.get(utf8("k2")), is(Optional.empty()));
        assertThat(peerEngine.get(utf8("k4")).map(Record::timestamp), is(Optional.of(14L)));
        assertThat("one request, nothing sent again", requests.size(), is(1));
    }

    @ParameterizedTest(name = "{0} batch(es) in flight")
    @ValueSource(ints = {1, 3})
    void aPeerThatDoesNotAnswerFailsThePush(int inFlight) throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        RecordPusher pusher = pusher(client(PEER_BODY_MAX), ClusterNode.parse("http://127.0.0.1:" + port), inFlight);
        pusher.add(utf8("k"), Record.value(10, utf8("v")));
        ExecutionException failure = assertThrows(ExecutionException.class, pusher::finish);
        assertThat(failure.getCause() instanceof RecordsRefusedException, is(false));
        assertThat(failure.getCause(), instanceOf(java.io.IOException.class));
        assertThat(refused, is(List.of()));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
