package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h1.H1Limits;
import io.ringkv.http.server.HttpServer;
import io.ringkv.http.server.ServerConfig;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hinted handoff against a real peer: our server on 127.0.0.1 serving {@link InternalApiHandler}
 * over its own engine, reached through the inter-node client. The peer starts down (nothing on
 * its port), so hints pile up, then comes up on that port and takes them.
 */
@Timeout(60)
class HintedHandoffTest {

    private static final HybridLogicalClock PEER_CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final ReplicaClient client = TestAuth.client(http, Duration.ofSeconds(2));
    private final StorageEngine coordinatorEngine = new InMemoryStorageEngine();
    private final StorageEngine peerEngine = new InMemoryStorageEngine();
    private final AtomicLong wallMillis = new AtomicLong(1_000_000);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private int peerPort;
    private ClusterNode peer;
    private ClusterNodes topology;

    @BeforeEach
    void peerIsDown() throws Exception {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            peerPort = probe.getLocalPort();
        }
        String self = "http://127.0.0.1:1"; // never contacted: the coordinator's own node
        peer = ClusterNode.parse("http://127.0.0.1:" + peerPort);
        topology = ClusterNodes.of(List.of(self, peer.id()), self);
    }

    @AfterEach
    void closeEverything() throws Exception {
        TestAuth.closeAll(resources, http, clientExecutor);
    }

    private HintedHandoff handoff(HintSettings settings) {
        return new HintedHandoff(coordinatorEngine.hints(), topology, client, settings, wallMillis::get);
    }

    private void peerComesUp() throws Exception {
        peerComesUp(H1Limits.defaults().bodyBytesMax());
    }

    /** The peer comes up limiting request bodies as a node with {@code --max-body} {@code bodyBytesMax} does. */
    private void peerComesUp(long bodyBytesMax) throws Exception {
        H1Limits defaults = H1Limits.defaults();
        ServerConfig config = ServerConfig.builder().host("127.0.0.1").port(peerPort).eventLoops(1).handlerThreads(2)
                .h1Limits(new H1Limits(defaults.requestLineBytesMax(), defaults.headerBlockBytesMax(),
                        defaults.headerCountMax(), InternalProtocol.serverBodyBytesMax(bodyBytesMax)))
                .shutdownGrace(Duration.ofSeconds(1)).build();
        resources.add(HttpServer.start(config, TestAuth.handler("http://127.0.0.1:" + peerPort, peerEngine, PEER_CLOCK)));
    }

    @Test
    void missedWritesAreReplayedOnceThePeerAnswers() throws Exception {
        HintedHandoff handoff = handoff(HintSettings.defaults());
        handoff.missed(peer, utf8("a"), Record.value(10, utf8("1")));
        handoff.missed(peer, utf8("b"), Record.tombstone(11));

        handoff.replayRound(); // the peer is down: the hints stay
        assertThat(handoff.pending(), is(Map.of(peer.id(), 2L)));

        peerComesUp();
        handoff.replayRound();

        assertThat(peerEngine.get(utf8("a")), is(Optional.of(Record.value(10, utf8("1")))));
        assertThat(peerEngine.get(utf8("b")), is(Optional.of(Record.tombstone(11))));
        assertThat(handoff.pending(), is(Map.of()));
        assertThat(handoff.replayedCount(), is(2L));
    }

    /**
     * A hint whose target no longer owns its key when its turn comes (here the factor went from 2
     * to 1 between the write and the replay; a join that completes does the same) is dropped,
     * counted, and not sent: replayed, it would leave a copy on a node that nothing maintains,
     * beside the owners' (the one a former owner's cleanup had already read past). The keys the
     * target still owns are replayed as before.
     */
    @Test
    void aHintForAKeyItsTargetNoLongerOwnsIsDroppedNotReplayed() throws Exception {
        java.util.concurrent.atomic.AtomicInteger rf = new java.util.concurrent.atomic.AtomicInteger(2);
        HintedHandoff handoff = new HintedHandoff(coordinatorEngine.hints(), topology, rf::get, client,
                HintSettings.defaults(), wallMillis::get);
        RendezvousPlacement placement = new RendezvousPlacement(topology);
        List<byte[]> stillOwned = new ArrayList<>();
        List<byte[]> noLongerOwned = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            byte[] key = utf8("k" + i);
            handoff.missed(peer, key, Record.value(10 + i, key)); // at factor 2 the peer owns every key
            (placement.owns(key, peer, 1) ? stillOwned : noLongerOwned).add(key);
        }
        assertThat("both kinds of key", stillOwned.isEmpty() || noLongerOwned.isEmpty(), is(false));

        rf.set(1);
        peerComesUp();
        handoff.replayRound();

        for (byte[] key : stillOwned) {
            assertThat("replayed: the peer still owns it", peerEngine.get(key).isPresent(), is(true));
        }
        for (byte[] key : noLongerOwned) {
            assertThat("not replayed: the peer no longer owns it", peerEngine.get(key), is(Optional.empty()));
        }
        assertThat(handoff.pending(), is(Map.of()));
        assertThat(handoff.replayedCount(), is((long) stillOwned.size()));
        assertThat(handoff.droppedByReason().get(HintDrops.Reason.NOT_OWNER), is((long) noLongerOwned.size()));
    }

    /**
     * A hint carries its record's expiry, and is delivered after the record expired too: it is
     * still the newest version of its key, and must replace the older value the target holds.
     */
    @Test
    void anExpiringWriteIsReplayedWithItsExpiryEvenOnceExpired() throws Exception {
        HintedHandoff handoff = handoff(HintSettings.defaults());
        Record expired = Record.expiring(10, utf8("v2"), 1);
        Record expiring = Record.expiring(11, utf8("v"), 1_700_000_002_000L);
        peerEngine.apply(utf8("a"), Record.value(5, utf8("v1, older")));
        handoff.missed(peer, utf8("a"), expired);
        handoff.missed(peer, utf8("b"), expiring);

        peerComesUp();
        handoff.replayRound();

        assertThat(peerEngine.get(utf8("a")), is(Optional.of(expired)));
        assertThat(peerEngine.get(utf8("b")), is(Optional.of(expiring)));
    }

    @Test
    void replayNeverPutsAnOlderVersionOverANewerOne() throws Exception {
        HintedHandoff handoff = handoff(HintSettings.defaults());
        handoff.missed(peer, utf8("k"), Record.value(10, utf8("old")));
        peerEngine.apply(utf8("k"), Record.value(20, utf8("newer, written directly")));

        peerComesUp();
        handoff.replayRound();

        assertThat(peerEngine.get(utf8("k")), is(Optional.of(Record.value(20, utf8("newer, written directly")))));
        assertThat(handoff.pending(), is(Map.of()));
    }

    @Test
    void severalHintsForOneKeySendTheNewest() throws Exception {
        HintedHandoff handoff = handoff(HintSettings.defaults());
        handoff.missed(peer, utf8("k"), Record.value(30, utf8("newest")));
        handoff.missed(peer, utf8("k"), Record.value(10, utf8("oldest")));

        peerComesUp();
        handoff.replayRound();

        assertThat(peerEngine.get(utf8("k")), is(Optional.of(Record.value(30, utf8("newest")))));
    }

    @Test
    void hintsBeyondTheBoundAreDroppedAndCounted() {
        HintedHandoff handoff = handoff(HintSettings.defaults().withMaxPerTarget(2));
        for (int i = 0; i < 3; i++) {
            handoff.missed(peer, utf8("k" + i), Record.value(10 + i, utf8("v")));
        }
        assertThat(handoff.pending(), is(Map.of(peer.id(), 2L)));
        assertThat(handoff.droppedCount(), is(1L));
    }

    @Test
    void hintsBeyondTheByteBoundAreDroppedAndCounted() {
        // Each hint weighs its key and value bytes: 2 + 38 = 40.
        HintedHandoff handoff = handoff(HintSettings.defaults().withMaxBytesPerTarget(100));
        for (int i = 0; i < 3; i++) {
            handoff.missed(peer, utf8("k" + i), Record.value(10 + i, new byte[38]));
        }
        assertThat(handoff.pending(), is(Map.of(peer.id(), 2L)));
        assertThat(handoff.droppedByReason().get(HintDrops.Reason.BYTE_BOUND), is(1L));
        assertThat(handoff.droppedCount(), is(1L));

        handoff.missed(peer, utf8("k3"), Record.value(13, new byte[18]));
        assertThat("a smaller one still fits", handoff.pending(), is(Map.of(peer.id(), 3L)));
    }

    /** A write whose hint the byte bound refuses is still acknowledged by the replicas that took it. */
    @Test
    void aWriteWhoseHintPassesTheByteBoundIsStillAcknowledged() throws Exception {
        HintedHandoff handoff = handoff(HintSettings.defaults().withMaxBytesPerTarget(10));
        LocalReplica local = new LocalReplica(topology.self(), coordinatorEngine);
        Coordinator coordinator = new Coordinator(topology,
                Map.of(topology.self(), local, peer, new FailingReplica(peer)),
                new HybridLogicalClock(wallMillis::get),
                new CoordinatorSettings(Duration.ofSeconds(5), Runnable::run), handoff, null);

        CompletableFuture<WriteOutcome> outcome = coordinator.put(utf8("k"), new byte[100], new ReplicationParams(1, 2));

        assertThat(outcome.get(10, TimeUnit.SECONDS) instanceof WriteOutcome.Acknowledged, is(true));
        assertThat(coordinatorEngine.get(utf8("k")).isPresent(), is(true));
        assertThat(handoff.pending(), is(Map.of()));
        assertThat(handoff.droppedByReason().get(HintDrops.Reason.BYTE_BOUND), is(1L));
    }

    /**
     * Hints of values that fill a request: each replay request stays within the peer's body limit,
     * one value of exactly that limit travels alone, and all drain in one round. Before, the round
     * sent them all in one request, which the peer refused with 413 every round.
     */
    @Test
    void hintsOfLargeValuesDrainWithinThePeersBodyLimit() throws Exception {
        int bodyMax = 64 * 1024;
        ReplicaClient limited = new ReplicaClient(http, Duration.ofSeconds(2), TestAuth.auth(),
                new TopologyWatch(TestAuth.TOPOLOGY), bodyMax);
        HintedHandoff handoff = new HintedHandoff(coordinatorEngine.hints(), topology, limited, HintSettings.defaults(),
                wallMillis::get);
        for (int i = 0; i < 60; i++) {
            handoff.missed(peer, utf8(String.format("k%02d", i)), Record.value(10 + i, new byte[i == 30 ? bodyMax : 10_000]));
        }

        peerComesUp(bodyMax);
        handoff.replayRound();

        assertThat(handoff.pending(), is(Map.of()));
        assertThat(handoff.replayedCount(), is(60L));
        assertThat(handoff.droppedCount(), is(0L));
        for (int i = 0; i < 60; i++) {
            assertThat(peerEngine.get(utf8(String.format("k%02d", i))).map(Record::timestamp), is(Optional.of(10L + i)));
        }
    }

    /**
     * A peer that refuses one record even alone (here: larger than its body limit, which is below
     * the coordinator's) gets the others, in the same round; that hint is dropped and counted, not
     * retried for ever. Before, the whole batch was refused every round and nothing drained.
     */
    @Test
    void aRecordTheTargetRefusesIsDroppedAndTheRestDrain() throws Exception {
        HintedHandoff handoff = handoff(HintSettings.defaults());
        for (int i = 0; i < 10; i++) {
            handoff.missed(peer, utf8("k" + i), Record.value(10 + i, new byte[i == 4 ? 100_000 : 10_000]));
        }
        handoff.missed(peer, utf8("k4"), Record.value(30, new byte[100_001])); // two hints, one record: both go

        peerComesUp(64 * 1024);
        handoff.replayRound();

        assertThat(handoff.pending(), is(Map.of()));
        assertThat(handoff.replayedCount(), is(9L));
        assertThat(handoff.droppedByReason().get(HintDrops.Reason.REFUSED), is(2L));
        for (int i = 0; i < 10; i++) {
            assertThat("k" + i, peerEngine.get(utf8("k" + i)).isPresent(), is(i != 4));
        }
    }

    @Test
    void hintsOlderThanTheMaximumAgeAreDroppedNotReplayed() throws Exception {
        HintedHandoff handoff = handoff(HintSettings.defaults().withMaxAge(Duration.ofSeconds(10)));
        handoff.missed(peer, utf8("stale"), Record.value(10, utf8("v")));
        wallMillis.addAndGet(5_000);
        handoff.missed(peer, utf8("fresh"), Record.value(11, utf8("w")));
        wallMillis.addAndGet(6_000); // the first hint is now 11 s old, the second 6 s

        peerComesUp();
        handoff.replayRound();

        assertThat(peerEngine.get(utf8("stale")), is(Optional.empty()));
        assertThat(peerEngine.get(utf8("fresh")), is(Optional.of(Record.value(11, utf8("w")))));
        assertThat(handoff.droppedCount(), is(1L));
    }

    @Test
    void replayIsPacedByTheRate() throws Exception {
        // 3 records per second with a 1 s round: the round takes the 3 oldest, the next the rest.
        HintedHandoff handoff = handoff(HintSettings.defaults().withReplayRate(3));
        for (int i = 0; i < 5; i++) {
            handoff.missed(peer, utf8("k" + i), Record.value(10 + i, utf8("v")));
        }
        peerComesUp();
        handoff.replayRound();
        assertThat(handoff.pending(), is(Map.of(peer.id(), 2L)));
        handoff.replayRound();
        assertThat(handoff.pending(), is(Map.of()));
    }

    @Test
    void theLocalNodeIsNeverHinted() {
        HintedHandoff handoff = handoff(HintSettings.defaults());
        handoff.missed(topology.self(), utf8("k"), Record.value(1, utf8("v")));
        assertThat(handoff.pending(), is(Map.of()));
    }

    @Test
    void aCoordinatedWriteHintsTheReplicaThatFailedBeforeItAnswers() throws Exception {
        List<String> hinted = new ArrayList<>();
        LocalReplica local = new LocalReplica(topology.self(), coordinatorEngine);
        Coordinator coordinator = new Coordinator(topology,
                Map.of(topology.self(), local, peer, new FailingReplica(peer)),
                new HybridLogicalClock(wallMillis::get),
                new CoordinatorSettings(Duration.ofSeconds(5), Runnable::run),
                (node, key, record) -> hinted.add(node.id() + " " + new String(key, StandardCharsets.UTF_8)), null);

        CompletableFuture<WriteOutcome> outcome = coordinator.put(utf8("k"), utf8("v"), new ReplicationParams(1, 2));

        assertThat(outcome.get(10, TimeUnit.SECONDS) instanceof WriteOutcome.Acknowledged, is(true));
        assertThat(hinted, contains(peer.id() + " k"));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
