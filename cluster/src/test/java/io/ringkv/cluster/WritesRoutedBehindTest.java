package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.cluster.peer.PeerTransport;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A copy routed under older owners that lands after the receiver's cleanup read past its key: the
 * receiver (served on a real port, its metadata at epoch 3) and the key's owner (another server),
 * replication factor 1, so each key has one owner. A sender whose requests say epoch 2 (a
 * coordinator that has not yet heard of the change, or a hand-over by the view before it) writes
 * keys the receiver does not own: the receiver hands them to their owner and drops them, unasked.
 * Before, they stayed beside the owner's copy for good (a leave rolled back while a coordinator
 * still wrote by the leaving view left a key on four nodes).
 */
@Timeout(60)
class WritesRoutedBehindTest {
    private static final HybridLogicalClock CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);
    private static final long EPOCH = 3;
    private static final Duration FOLLOW_UP_PAUSE = Duration.ofMillis(50);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final StorageEngine receiverEngine = new InMemoryStorageEngine();
    private final StorageEngine ownerEngine = new InMemoryStorageEngine();
    private final List<AutoCloseable> resources = new ArrayList<>();
    /** The epoch the sender's requests carry. */
    private final AtomicLong senderEpoch = new AtomicLong(EPOCH);
    private final ReplicaClient sender = TestAuth.client(http, Duration.ofSeconds(2), senderEpoch);
    private ClusterNode receiver;
    private ClusterNode owner;
    private RendezvousPlacement placement;

    @BeforeEach
    void receiverAndOwner() throws Exception {
        ServerHarness ownerServer = ServerHarness.startFor(url -> TestAuth.handler(url, ownerEngine, CLOCK));
        resources.add(ownerServer);
        String ownerUrl = ownerServer.url();
        ServerHarness receiverServer = ServerHarness.startFor(url -> receiverHandler(url, ownerUrl));
        resources.add(receiverServer);
        receiver = ClusterNode.parse(receiverServer.url());
        owner = ClusterNode.parse(ownerUrl);
        placement = new RendezvousPlacement(ClusterNodes.of(List.of(receiver.id(), owner.id()), receiver.id()));
    }

    /** The receiver: metadata at {@link #EPOCH}, both nodes normal, factor 1; its cleanup mounted as a node's is. */
    private InternalApiHandler receiverHandler(String url, String ownerUrl) {
        ClusterMetadata metadata = new ClusterMetadata(EPOCH, 1, List.of(member(url, 0), member(ownerUrl, 1)));
        ClusterNodes topology = ClusterNodes.of(List.of(url, ownerUrl), url);
        topology.follow(metadata);
        InternalApiHandler handler = TestAuth.handlerKnowing(url, receiverEngine, CLOCK, metadata, new PaxosAcceptor(receiverEngine),
                EpochGate.CATCH_UP_WAIT_MAX);
        Cleanup cleanup = new Cleanup(receiverEngine, topology, () -> 1, TestAuth.client(http, Duration.ofSeconds(2)),
                new ScanPacer(1_000_000_000L), Duration.ofSeconds(2), FirstSourceBuckets.OwnDigest.NONE, Duration.ofMillis(100),
                FOLLOW_UP_PAUSE);
        resources.add(cleanup);
        handler.mountCleanup(cleanup);
        return handler;
    }

    private static Member member(String url, int index) {
        ClusterNode node = ClusterNode.parse(url);
        return new Member(Member.idOf(node), node.id(), MemberState.NORMAL, index, null);
    }

    @AfterEach
    void closeEverything() throws Exception {
        TestAuth.closeAll(resources, http, clientExecutor);
    }

    @Test
    void aWriteRoutedUnderAnOlderEpochIsHandedToItsOwnerAndDroppedHere() throws Exception {
        List<byte[]> theirs = keysOwnedBy(owner, 2);
        byte[] mine = keysOwnedBy(receiver, 1).getFirst();
        byte[] sentByTheCurrentView = theirs.get(0);
        byte[] sentByTheOlderView = theirs.get(1);
        Record current = Record.value(10, utf8("written by the view of now"));
        Record older = Record.value(11, utf8("written by the view before"));
        Record owned = Record.value(12, utf8("owned here"));

        // A write the current view sent here though the key is not this node's: a client's explicit `from` above the factor.
        sender.writeEach(receiver, List.of(sentByTheCurrentView), List.of(current), -1).get(5, TimeUnit.SECONDS);
        senderEpoch.set(EPOCH - 1);
        sender.writeEach(receiver, List.of(sentByTheOlderView, mine), List.of(older, owned), -1).get(5, TimeUnit.SECONDS);

        awaitGone(sentByTheOlderView);
        assertThat("handed to its owner first", ownerEngine.get(sentByTheOlderView), is(Optional.of(older)));
        assertThat("owned here: kept", receiverEngine.get(mine), is(Optional.of(owned)));
        assertThat("routed by the view of now: left as it is", receiverEngine.get(sentByTheCurrentView), is(Optional.of(current)));
    }

    /** A hand-over run under the view before the change stamps its batches with that view's epoch, not the sender's of now. */
    @Test
    void aPushStampedWithTheEpochItWasRoutedUnderIsHandedOn() throws Exception {
        byte[] theirs = keysOwnedBy(owner, 1).getFirst();
        Record record = Record.value(20, utf8("handed over by the view before"));
        RecordPusher pusher = new RecordPusher(sender, receiver, 16, 1, Duration.ofSeconds(5), EPOCH - 1, (key, refused, why) -> {
            throw new AssertionError("refused: " + why);
        });
        pusher.add(theirs, record);
        assertThat(pusher.finish(), is(1));

        awaitGone(theirs);
        assertThat(ownerEngine.get(theirs), is(Optional.of(record)));
    }

    private void awaitGone(byte[] key) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (receiverEngine.get(key).isPresent() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat("dropped here, " + WAIT + " after it was stored", receiverEngine.get(key), is(Optional.empty()));
    }

    private List<byte[]> keysOwnedBy(ClusterNode node, int count) {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            if (placement.owners(key, 1).getFirst().equals(node)) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
