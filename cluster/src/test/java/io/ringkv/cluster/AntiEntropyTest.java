package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Anti-entropy between two real nodes: our server on 127.0.0.1 serving {@link InternalApiHandler}
 * for each, their own engines, the inter-node client between them. Rounds are started by hand.
 */
@Timeout(60)
class AntiEntropyTest {

    /** Records with timestamps below this count as older than the tombstone grace period. */
    private static final long COLLECTED_BEFORE = 5;
    /**
     * Says "old" for values too, unlike {@link TombstoneCollector#mayBeCollectedElsewhere}: anti-entropy
     * itself must send a value whatever the predicate says of it.
     */
    private static final java.util.function.Predicate<Record> OLD = record -> record.timestamp() < COLLECTED_BEFORE;
    private static final HybridLogicalClock CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final ReplicaClient client = TestAuth.client(http, Duration.ofSeconds(2));
    private final ScanCountingEngine engineA = new ScanCountingEngine(new InMemoryStorageEngine());
    private final ScanCountingEngine engineB = new ScanCountingEngine(new InMemoryStorageEngine());
    private final List<AutoCloseable> resources = new ArrayList<>();
    private ClusterNodes topologyA;
    private ClusterNode a;
    private ClusterNode b;
    private AntiEntropy antiEntropyA;

    @BeforeEach
    void twoNodes() throws Exception {
        AtomicReference<HttpHandler> handlerA = new AtomicReference<>();
        AtomicReference<HttpHandler> handlerB = new AtomicReference<>();
        ServerHarness serverA = ServerHarness.start(request -> handlerA.get().handle(request));
        ServerHarness serverB = ServerHarness.start(request -> handlerB.get().handle(request));
        resources.add(serverA);
        resources.add(serverB);
        topologyA = ClusterNodes.of(List.of(serverA.url(), serverB.url()), serverA.url());
        a = topologyA.self();
        b = topologyA.others().getFirst();
        antiEntropyA = new AntiEntropy(engineA, topologyA, client, AntiEntropySettings.defaults(), OLD);
        resources.add(antiEntropyA);
        handlerA.set(TestAuth.handler(serverA.url(), engineA, CLOCK, antiEntropyA));
        // B keeps its digest per write as a node does (its rounds are never started here), so its
        // answers to A's digest requests read memory, not its store.
        AntiEntropy antiEntropyB = new AntiEntropy(engineB, ClusterNodes.of(List.of(serverA.url(), serverB.url()),
                serverB.url()), client, AntiEntropySettings.defaults(), OLD);
        resources.add(antiEntropyB);
        handlerB.set(TestAuth.handler(serverB.url(), engineB, CLOCK, antiEntropyB));
    }

    @AfterEach
    void closeEverything() throws Exception {
        TestAuth.closeAll(resources, http, clientExecutor);
    }

    private AntiEntropy.Status round() throws InterruptedException {
        long before = antiEntropyA.requestRound();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            AntiEntropy.Status status = antiEntropyA.status();
            if (status.roundsCompleted() > before && !status.running()) {
                return status;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no anti-entropy round finished within 30 s");
    }

    /**
     * Writes as many other keys of {@code key}'s bucket to both nodes as the recent-keys pass
     * remembers per bucket, so that only the scan finds {@code key}.
     */
    private void pushOutOfTheRecentKeys(byte[] key) throws Exception {
        int bucket = DigestBuckets.bucketOf(key);
        int pushedOut = 0;
        for (int i = 0; pushedOut < LiveDigest.RECENT_PER_BUCKET; i++) {
            byte[] later = utf8("later-" + i);
            if (DigestBuckets.bucketOf(later) == bucket) {
                engineA.apply(later, Record.value(60 + i, utf8("on both")));
                engineB.apply(later, Record.value(60 + i, utf8("on both")));
                pushedOut++;
            }
        }
    }

    /** A key for which {@code first} comes before {@code second} in the replica order. */
    private byte[] keyRanking(ClusterNode first, ClusterNode second, String prefix) {
        RendezvousPlacement placement = new RendezvousPlacement(topologyA);
        for (int i = 0; ; i++) {
            byte[] key = utf8(prefix + i);
            if (placement.ranksAbove(key, first, second)) {
                return key;
            }
        }
    }

    @Test
    void inSyncReplicasExchangeOnlyTheDigest() throws Exception {
        for (int i = 0; i < 100; i++) {
            engineA.apply(utf8("k" + i), Record.value(10 + i, utf8("v" + i)));
            engineB.apply(utf8("k" + i), Record.value(10 + i, utf8("v" + i)));
        }
        AntiEntropy.Status status = round();
        assertThat(status.bucketsDiffering(), is(0L));
        assertThat(status.recordsPushed(), is(0L));
        assertThat(status.peersFailed(), is(0L));
    }

    /** The comparing node reads its digest from memory: a round between replicas in sync scans nothing on its side. */
    @Test
    void aRoundBetweenReplicasInSyncDoesNotScanTheComparingNodesStore() throws Exception {
        for (int i = 0; i < 100; i++) {
            engineA.apply(utf8("s" + i), Record.value(10 + i, utf8("v" + i)));
            engineB.apply(utf8("s" + i), Record.value(10 + i, utf8("v" + i)));
        }
        engineA.rangesOpened.set(0);
        AntiEntropy.Status status = round();
        assertThat(status.bucketsDiffering(), is(0L));
        assertThat(status.peersFailed(), is(0L));
        assertThat("scans of A's store during the round", engineA.rangesOpened.get(), is(0));
    }

    /**
     * A peer that missed a few recent writes gets them from the keys lately changed in the
     * differing buckets ({@link LiveDigest#recentKeys}): neither node scans its store. Before, every
     * differing bucket cost a paced scan of both stores.
     */
    @Test
    void aPeerThatMissedRecentWritesGetsThemWithoutAScanOnEitherSide() throws Exception {
        for (int i = 0; i < 200; i++) {
            engineA.apply(utf8("r" + i), Record.value(10 + i, utf8("v" + i)));
            engineB.apply(utf8("r" + i), Record.value(10 + i, utf8("v" + i)));
        }
        engineA.apply(utf8("missed-1"), Record.value(500, utf8("B was down")));
        engineA.apply(utf8("missed-2"), Record.tombstone(501));
        engineB.apply(utf8("missed-2"), Record.value(400, utf8("deleted while B was down")));
        engineA.rangesOpened.set(0);
        engineB.rangesOpened.set(0);

        AntiEntropy.Status status = round();

        assertThat(status.toJson(), status.bucketsDiffering(), greaterThan(0L));
        assertThat(status.bucketsWithoutScan(), is(status.bucketsDiffering()));
        assertThat(engineB.get(utf8("missed-1")).orElseThrow().value(), is(utf8("B was down")));
        assertThat(engineB.get(utf8("missed-2")).orElseThrow().tombstone(), is(true));
        assertThat("scans of A's store", engineA.rangesOpened.get(), is(0));
        assertThat("scans of B's store", engineB.rangesOpened.get(), is(0));
        assertThat("a second round finds nothing to do", round().bucketsDiffering(), is(0L));
    }

    /** Keys changed longer ago than the recent-keys pass remembers are still found, by the scan. */
    @Test
    void aBucketTheRecentKeysDoNotLevelIsStillRepairedByTheScan() throws Exception {
        byte[] old = utf8("changed-long-ago");
        engineA.apply(old, Record.value(50, utf8("only on A")));
        pushOutOfTheRecentKeys(old);
        engineA.rangesOpened.set(0);

        AntiEntropy.Status status = round();

        assertThat(status.bucketsDiffering(), is(1L));
        assertThat(status.bucketsWithoutScan(), is(0L));
        assertThat("the scan of A's store", engineA.rangesOpened.get(), is(1));
        assertThat(engineB.get(old).orElseThrow().value(), is(utf8("only on A")));
    }

    @Test
    void aPeerGetsWhatItShouldHoldAndLacksOrHoldsOlder() throws Exception {
        byte[] lacked = keyRanking(b, a, "lacked-");
        byte[] older = keyRanking(a, b, "older-");
        byte[] deleted = keyRanking(b, a, "deleted-");
        engineA.apply(lacked, Record.value(10, utf8("only on A")));
        engineA.apply(older, Record.value(20, utf8("newer on A")));
        engineB.apply(older, Record.value(15, utf8("older on B")));
        engineA.apply(deleted, Record.tombstone(30));
        engineB.apply(deleted, Record.value(25, utf8("deleted on A")));

        AntiEntropy.Status status = round();

        assertThat(engineB.get(lacked), is(Optional.of(Record.value(10, utf8("only on A")))));
        assertThat(engineB.get(older), is(Optional.of(Record.value(20, utf8("newer on A")))));
        assertThat(engineB.get(deleted), is(Optional.of(Record.tombstone(30))));
        assertThat(status.bucketsDiffering(), greaterThan(0L));
        assertThat(status.recordsPushed(), is(3L));
        assertThat("a second round finds nothing to do", round().bucketsDiffering(), is(0L));
    }

    @Test
    void aKeyWrittenToFewerReplicasIsCopiedToThePeerToo() throws Exception {
        // A holds it, B comes after A in its order and holds no version: a write with from=1. The
        // record does not carry its "from", so the round copies it (docs/cluster.md says so).
        byte[] key = keyRanking(a, b, "from-1-");
        engineA.apply(key, Record.value(10, utf8("on A only")));

        round();

        assertThat(engineB.get(key), is(Optional.of(Record.value(10, utf8("on A only")))));
    }

    /** The peer most likely collected it: sending it back would only have it stored and collected again. */
    @Test
    void aTombstoneOlderThanTheGracePeriodIsNotSentToAPeerThatLacksTheKey() throws Exception {
        byte[] key = keyRanking(b, a, "ancient-");
        engineA.apply(key, Record.tombstone(3));

        round();

        assertThat(engineB.get(key), is(Optional.empty()));
    }

    /** It is the newer version there, whatever its age: the peer's value was deleted. */
    @Test
    void aTombstoneOlderThanTheGracePeriodIsSentToAPeerHoldingAnOlderValue() throws Exception {
        byte[] key = keyRanking(b, a, "ancient-delete-");
        engineA.apply(key, Record.tombstone(3));
        engineB.apply(key, Record.value(2, utf8("deleted long ago")));

        round();

        assertThat(engineB.get(key), is(Optional.of(Record.tombstone(3))));
    }

    /**
     * A value older than the grace period reaches a peer that lacks it, as a node wiped and
     * restarted empty does, by either pass: the recent keys' and the scan's. Before, anti-entropy
     * withheld every record older than the grace period, values too, so such keys stayed on fewer
     * replicas for good (issue 32, item 7).
     */
    @Test
    void aValueOlderThanTheGracePeriodIsSentToAPeerThatLacksTheKey() throws Exception {
        byte[] recent = utf8("old-recent");
        engineA.apply(recent, Record.value(3, utf8("written long ago")));
        byte[] scanned = utf8("old-scanned");
        engineA.apply(scanned, Record.value(4, utf8("written long ago, changed nothing since")));
        pushOutOfTheRecentKeys(scanned);

        AntiEntropy.Status status = round();

        assertThat(engineB.get(recent), is(Optional.of(Record.value(3, utf8("written long ago")))));
        assertThat(engineB.get(scanned), is(Optional.of(Record.value(4, utf8("written long ago, changed nothing since")))));
        assertThat("buckets differing", status.bucketsDiffering(), is(2L));
        assertThat("buckets levelled by the recent keys: the scan found the other key", status.bucketsWithoutScan(), is(1L));
    }

    /**
     * An expired record is sent as what it is, the newest version, with its expiry: to a peer that
     * holds an older value of the key (which must not outlive it there) and to one that lacks it.
     */
    @Test
    void anExpiringRecordIsSentWithItsExpiryAndReplacesAnOlderValue() throws Exception {
        byte[] over = keyRanking(b, a, "expired-over-");
        byte[] lacked = keyRanking(b, a, "expiring-lacked-");
        Record expired = Record.expiring(30, utf8("expired"), 1);
        Record expiring = Record.expiring(31, utf8("expiring"), 1_700_000_002_000L);
        engineA.apply(over, expired);
        engineB.apply(over, Record.value(20, utf8("older value")));
        engineA.apply(lacked, expiring);

        round();

        assertThat(engineB.get(over), is(Optional.of(expired)));
        assertThat(engineB.get(lacked), is(Optional.of(expiring)));
    }

    /** Like an old tombstone: the peer that lacks the key most likely collected it already. */
    @Test
    void anExpiredRecordPastItsGraceIsNotSentToAPeerThatLacksTheKey() throws Exception {
        byte[] key = keyRanking(b, a, "expired-ancient-");
        engineA.apply(key, Record.expiring(3, utf8("expired long ago"), 1));

        round();

        assertThat(engineB.get(key), is(Optional.empty()));
    }

    @Test
    void recordsThePeerHoldsNewerAreLeftToThePeersOwnRound() throws Exception {
        byte[] key = keyRanking(b, a, "newer-on-b-");
        engineA.apply(key, Record.value(10, utf8("old")));
        engineB.apply(key, Record.value(20, utf8("new")));

        round();

        assertThat(engineA.get(key), is(Optional.of(Record.value(10, utf8("old")))));
        assertThat(engineB.get(key), is(Optional.of(Record.value(20, utf8("new")))));
    }

    @Test
    void digestsDependOnVersionsNotOnValuesOrOrder() throws Exception {
        StorageEngine one = new InMemoryStorageEngine();
        StorageEngine two = new InMemoryStorageEngine();
        one.apply(utf8("x"), Record.value(1, utf8("a")));
        one.apply(utf8("y"), Record.tombstone(2));
        two.apply(utf8("y"), Record.tombstone(2));
        two.apply(utf8("x"), Record.value(1, utf8("a")));
        assertThat(DigestBuckets.digest(one), is(DigestBuckets.digest(two)));
        two.apply(utf8("x"), Record.value(3, utf8("a")));
        assertThat(DigestBuckets.digest(one), is(not(DigestBuckets.digest(two))));
        assertThat(DigestBuckets.decode(DigestBuckets.encode(DigestBuckets.digest(one))), is(DigestBuckets.digest(one)));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
