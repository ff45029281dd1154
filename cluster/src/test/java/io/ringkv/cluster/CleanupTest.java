package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h1.H1Limits;
import io.ringkv.http.server.HttpServer;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.RangeCursor;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cleanup against a real owner: two nodes, replication factor 1, so every key is owned by exactly
 * one of them. This node holds keys of both kinds; the peer (our server over its own engine) owns
 * the others and starts down. Nothing is dropped while the owner cannot take it; once it is up,
 * every key not owned here moves there (a newer copy the owner holds stays), and the keys owned
 * here stay.
 */
@Timeout(60)
class CleanupTest {
    private static final HybridLogicalClock PEER_CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);
    private static final Duration RETRY_PAUSE = Duration.ofMillis(100);
    private static final Duration FOLLOW_UP_PAUSE = Duration.ofMillis(50);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final ReplicaClient client = TestAuth.client(http, Duration.ofSeconds(2));
    private final StorageEngine engine = new InMemoryStorageEngine();
    private final StorageEngine peerEngine = new InMemoryStorageEngine();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private int peerPort;
    private ClusterNodes topology;
    private Cleanup cleanup;

    @BeforeEach
    void peerIsDown() throws Exception {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            peerPort = probe.getLocalPort();
        }
        String self = "http://127.0.0.1:1"; // never contacted: this node
        topology = ClusterNodes.of(List.of(self, "http://127.0.0.1:" + peerPort), self);
        cleanup = cleanupOver(topology);
    }

    /** A cleanup of this node's engine among {@code nodes} at factor 1, closed after the test. */
    private Cleanup cleanupOver(ClusterNodes nodes) {
        Cleanup run = new Cleanup(engine, nodes, () -> 1, client, new ScanPacer(1_000_000_000L), Duration.ofSeconds(2),
                FirstSourceBuckets.OwnDigest.NONE, RETRY_PAUSE, FOLLOW_UP_PAUSE);
        resources.add(run);
        return run;
    }

    @AfterEach
    void closeEverything() throws Exception {
        TestAuth.closeAll(resources, http, clientExecutor);
    }

    @Test
    void dropsOnlyWhatTheOwnerTookAndKeepsWhatThisNodeOwns() throws Exception {
        RendezvousPlacement placement = new RendezvousPlacement(topology);
        List<byte[]> mine = new ArrayList<>();
        List<byte[]> theirs = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) { // several chunks
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            engine.apply(key, i % 7 == 0 ? Record.tombstone(100 + i) : Record.value(100 + i, key));
            (topology.isSelf(placement.owners(key, 1).getFirst()) ? mine : theirs).add(key);
        }
        byte[] newerThere = theirs.getFirst();
        peerEngine.apply(newerThere, Record.value(1_000_000, "newer".getBytes(StandardCharsets.UTF_8)));

        CleanupStatus down = cleanup.run();
        assertThat("every record read once", down.scanned(), is(3_000L));
        assertThat("not owned here", down.notOwned(), is((long) theirs.size()));
        assertThat("nothing dropped while the owner is down", down.dropped(), is(0L));
        assertThat(down.kept(), is((long) theirs.size()));
        assertThat(down.ownersFailed(), is(1));
        for (byte[] key : theirs) {
            assertThat(engine.get(key).isPresent(), is(true));
        }

        peerComesUp();
        CleanupStatus up = cleanup.run();

        assertThat(up.dropped(), is((long) theirs.size()));
        assertThat(up.kept(), is(0L));
        for (byte[] key : theirs) {
            assertThat("dropped here", engine.get(key), is(Optional.empty()));
            assertThat("held by the owner", peerEngine.get(key).isPresent(), is(true));
        }
        assertThat("the owner's newer copy stays", new String(peerEngine.get(newerThere).orElseThrow().value(),
                StandardCharsets.UTF_8), is("newer"));
        byte[] tombstoneKey = theirs.stream().filter(key -> Integer.parseInt(new String(key, StandardCharsets.UTF_8)
                .substring(1)) % 7 == 0 && key != newerThere).findFirst().orElseThrow();
        assertThat("a tombstone moves as a tombstone", peerEngine.get(tombstoneKey).orElseThrow().tombstone(), is(true));
        for (byte[] key : mine) {
            assertThat("owned here: kept", engine.get(key).isPresent(), is(true));
        }
        assertThat("a second run finds nothing to move", cleanup.run().notOwned(), is(0L));
    }

    /**
     * An owner that lets one batch go unanswered past the call's timeout (a joining node in a GC
     * pause) takes the chunk when it is sent again: the run hands everything over and drops it
     * here, where before the owner counted as failed at once and the run kept every record.
     */
    @Test
    void anOwnerThatMissesOneAnswerTakesTheChunkSentAgain() throws Exception {
        try (GatedPeer owner = new GatedPeer(peerEngine, PEER_CLOCK, InternalProtocol.WRITES_PATH)) {
            String self = "http://127.0.0.1:1";
            ClusterNodes two = ClusterNodes.of(List.of(self, owner.node().id()), self);
            RendezvousPlacement placement = new RendezvousPlacement(two);
            List<byte[]> theirs = new ArrayList<>();
            for (int i = 0; i < 600; i++) { // one chunk, more than one batch
                byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
                engine.apply(key, Record.value(100 + i, key));
                if (!two.isSelf(placement.owners(key, 1).getFirst())) {
                    theirs.add(key);
                }
            }
            Cleanup stalled = cleanupOver(two);

            CleanupStatus status = stalled.run(); // the first batch's answer never comes: the gate stays shut

            assertThat("the owner did not count as failed", status.ownersFailed(), is(0));
            assertThat("every record the owner should hold was dropped here", status.dropped(), is((long) theirs.size()));
            assertThat(status.kept(), is(0L));
            for (byte[] key : theirs) {
                assertThat("held by the owner", peerEngine.get(key).isPresent(), is(true));
                assertThat("dropped here", engine.get(key), is(Optional.empty()));
            }
            assertThat("the chunk went again after the unanswered batch", owner.batched(InternalProtocol.WRITES_PATH)
                    > theirs.size(), is(true));
        }
    }

    /**
     * An owner that already holds the version of a record to be dropped here is not sent it: the
     * run asks the owner for its versions of the chunk's keys first and sends only the records it
     * lacks (absent there, or older), then drops everything. Before, every record went whole, so
     * after a join each former owner rewrote every key that moved, changing nothing.
     */
    @Test
    void recordsAnOwnerAlreadyHoldsAreDroppedWithoutBeingSent() throws Exception {
        try (GatedPeer owner = new GatedPeer(peerEngine, PEER_CLOCK, InternalProtocol.READS_PATH)) { // a run reads nothing
            owner.open();
            String self = "http://127.0.0.1:1";
            ClusterNodes two = ClusterNodes.of(List.of(self, owner.node().id()), self);
            List<byte[]> theirs = notOwnedHere(two, 600); // one chunk, three versions batches
            byte[] absentThere = theirs.get(0);
            byte[] olderThere = theirs.get(1);
            byte[] newerThere = theirs.get(2);
            byte[] deletedHereOnly = theirs.get(3);
            for (byte[] key : theirs) {
                Record mine = engine.get(key).orElseThrow();
                if (key == deletedHereOnly) {
                    peerEngine.apply(key, mine); // the owner has the value of the same instant ...
                    engine.apply(key, Record.tombstone(mine.timestamp())); // ... and a tombstone of it beats it
                } else if (key == olderThere) {
                    peerEngine.apply(key, Record.value(mine.timestamp() - 50, "older".getBytes(StandardCharsets.UTF_8)));
                } else if (key == newerThere) {
                    peerEngine.apply(key, Record.value(mine.timestamp() + 50, "newer".getBytes(StandardCharsets.UTF_8)));
                } else if (key != absentThere) {
                    peerEngine.apply(key, mine);
                }
            }
            Record absentRecord = engine.get(absentThere).orElseThrow();
            Record olderRecord = engine.get(olderThere).orElseThrow();
            Cleanup checking = cleanupOver(two);

            CleanupStatus status = checking.run();

            assertThat(status.dropped(), is((long) theirs.size()));
            assertThat(status.kept(), is(0L));
            assertThat("dropped without being sent", status.heldByOwners(), is((long) theirs.size() - 3));
            assertThat("only the three records the owner lacked were sent", owner.batched(InternalProtocol.WRITES_PATH), is(3));
            assertThat("sent: the owner lacked it", peerEngine.get(absentThere), is(Optional.of(absentRecord)));
            assertThat("sent: the owner's was older", peerEngine.get(olderThere), is(Optional.of(olderRecord)));
            assertThat(new String(peerEngine.get(newerThere).orElseThrow().value(), StandardCharsets.UTF_8), is("newer"));
            assertThat(peerEngine.get(deletedHereOnly).orElseThrow().tombstone(), is(true));
            for (byte[] key : theirs) {
                assertThat("dropped here", engine.get(key), is(Optional.empty()));
            }
        }
    }

    /**
     * An owner that cannot say which versions it holds (a node without the versions batch, which
     * answers 404) is sent every record, as before the check: the run still hands everything over.
     */
    @Test
    void anOwnerThatCannotSayWhatItHoldsIsSentEveryRecord() throws Exception {
        try (ServerHarness server = ServerHarness.startFor(url -> {
            io.ringkv.http.server.HttpHandler internal = TestAuth.handler(url, peerEngine, PEER_CLOCK);
            return request -> request.path().equals(InternalProtocol.VERSIONS_PATH) && request.method().equals("POST")
                    ? java.util.concurrent.CompletableFuture.completedFuture(
                            io.ringkv.http.server.Response.text(404, "no internal endpoint " + request.path()))
                    : internal.handle(request);
        })) {
            String self = "http://127.0.0.1:1";
            ClusterNodes two = ClusterNodes.of(List.of(self, server.url()), self);
            List<byte[]> theirs = notOwnedHere(two, 300);
            for (byte[] key : theirs) {
                peerEngine.apply(key, engine.get(key).orElseThrow()); // held there, but it cannot say so
            }
            Cleanup checking = cleanupOver(two);

            CleanupStatus status = checking.run();

            assertThat(status.dropped(), is((long) theirs.size()));
            assertThat(status.heldByOwners(), is(0L));
            assertThat(status.ownersFailed(), is(0));
            for (byte[] key : theirs) {
                assertThat("dropped here", engine.get(key), is(Optional.empty()));
                assertThat("held by the owner", peerEngine.get(key).isPresent(), is(true));
            }
        }
    }

    /**
     * Writes k0, k1, ... ({@code count} keys, each its own value, stamped 100 + i) here; returns
     * those that {@code nodes}' other member owns at factor 1.
     */
    private List<byte[]> notOwnedHere(ClusterNodes nodes, int count) throws Exception {
        RendezvousPlacement placement = new RendezvousPlacement(nodes);
        List<byte[]> theirs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            engine.apply(key, Record.value(100 + i, key));
            if (!nodes.isSelf(placement.owners(key, 1).getFirst())) {
                theirs.add(key);
            }
        }
        return theirs;
    }

    @Test
    void aRunReadsTheStoreAtTheStreamRateInBytesOfKeysAndValues() throws Exception {
        for (int i = 0; i < 640; i++) { // ten pacing batches of 64 records, 1,004 bytes each
            byte[] key = String.format("k%03d", i).getBytes(StandardCharsets.UTF_8);
            engine.apply(key, Record.value(100 + i, new byte[1_000]));
        }
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(0);
        Cleanup paced = new Cleanup(engine, topology, () -> 1, client,
                new ScanPacer(100_000, now::get, now::addAndGet), Duration.ofSeconds(2), FirstSourceBuckets.OwnDigest.NONE);
        resources.add(paced);

        paced.run();

        // 642,560 bytes at 100,000 per second: 6.4256 s on the pacer's clock, less its 10 ms of burst credit
        // (counting records instead, at any rate a record count could be mistaken for, gives far less or far more).
        long expected = TimeUnit.MICROSECONDS.toNanos(6_425_600);
        assertThat(now.get(), org.hamcrest.Matchers.allOf(org.hamcrest.Matchers.greaterThanOrEqualTo(expected
                - TimeUnit.MILLISECONDS.toNanos(10)), org.hamcrest.Matchers.lessThanOrEqualTo(expected)));
    }

    @Test
    void largeValuesLeaveInChunksOfBoundedBytesSoFewAreHeldReadAndNotYetDropped() throws Exception {
        int valueBytes = 256 * 1024;
        RendezvousPlacement placement = new RendezvousPlacement(topology);
        // Only keys the peer owns, so that every record read is handed over and then dropped:
        // 100 of them, 25 MiB, fewer records than a chunk's count and several times its byte bound.
        List<byte[]> theirs = new ArrayList<>();
        for (int i = 0; theirs.size() < 100; i++) {
            byte[] key = String.format("k%04d", i).getBytes(StandardCharsets.UTF_8);
            if (!topology.isSelf(placement.owners(key, 1).getFirst())) {
                engine.apply(key, Record.value(100 + i, new byte[valueBytes]));
                theirs.add(key);
            }
        }
        HeldBytes held = new HeldBytes(engine);
        Cleanup bounded = new Cleanup(held.engine(), topology, () -> 1, client, new ScanPacer(1_000_000_000L),
                Duration.ofSeconds(10), FirstSourceBuckets.OwnDigest.NONE);
        resources.add(bounded);
        peerComesUp();

        CleanupStatus status = bounded.run();

        assertThat(status.dropped(), is((long) theirs.size()));
        for (byte[] key : theirs) {
            assertThat("held by the owner", peerEngine.get(key).isPresent(), is(true));
        }
        assertThat("several chunks' worth", (long) theirs.size() * valueBytes,
                org.hamcrest.Matchers.greaterThan(2 * Cleanup.CHUNK_BYTES_MAX));
        long bound = Cleanup.CHUNK_BYTES_MAX + valueBytes + 16;
        assertThat("bytes read from the store and not yet dropped, at most", held.max(),
                org.hamcrest.Matchers.lessThanOrEqualTo(bound));
    }

    /**
     * {@code engine} with a count of the bytes of keys and values read through its range cursors
     * and not yet purged, and the most it reached: what a cleanup holds in memory at once.
     */
    private static final class HeldBytes {
        private final StorageEngine target;
        private final java.util.concurrent.atomic.AtomicLong held = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.concurrent.atomic.AtomicLong max = new java.util.concurrent.atomic.AtomicLong();

        HeldBytes(StorageEngine target) {
            this.target = target;
        }

        long max() {
            return max.get();
        }

        StorageEngine engine() {
            return WatchedEngine.of(target, (method, args, result) -> {
                if (method.getName().equals("purge") && Boolean.TRUE.equals(result)) {
                    held.addAndGet(-(((byte[]) args[0]).length + ((Record) args[1]).value().length));
                } else if (method.getName().equals("range")) {
                    return WatchedEngine.stepping((RangeCursor) result, (cursor, more) -> {
                        if (more) {
                            max.accumulateAndGet(held.addAndGet(cursor.key().length + cursor.record().value().length), Math::max);
                        }
                    });
                }
                return result;
            });
        }
    }

    /**
     * A write that lands on this node between a run's scan and its purge of the key (a coordinator
     * that still routed by the membership before the change) makes the purge refuse, and the run
     * keeps the newer record. A follow-up over that key alone hands the newer record over and drops
     * it. Before, it stayed here until the next membership change or {@code ringkv cleanup}: a key
     * on more nodes than its owners.
     */
    @Test
    void aRecordWrittenBetweenTheScanAndThePurgeIsHandedOverByAFollowUp() throws Exception {
        String self = "http://127.0.0.1:1";
        byte[][] late = new byte[1][];
        Record newer = Record.value(5_000, "written late".getBytes(StandardCharsets.UTF_8));
        java.util.concurrent.atomic.AtomicBoolean written = new java.util.concurrent.atomic.AtomicBoolean();
        try (ServerHarness owner = ServerHarness.startFor(url -> {
            io.ringkv.http.server.HttpHandler internal = TestAuth.handler(url, peerEngine, PEER_CLOCK);
            return request -> {
                if (request.path().equals(InternalProtocol.WRITES_PATH) && written.compareAndSet(false, true)) {
                    engine.apply(late[0], newer); // lands here while the run waits for the owner
                }
                return internal.handle(request);
            };
        })) {
            ClusterNodes two = ClusterNodes.of(List.of(self, owner.url()), self);
            List<byte[]> theirs = notOwnedHere(two, 200);
            late[0] = theirs.get(theirs.size() / 2);
            Cleanup cleanup = cleanupOver(two);

            cleanup.request();
            CleanupStatus last = awaitRunsSettled(cleanup, 2);

            assertThat("the late write reached this node", written.get(), is(true));
            assertThat("a run, then one follow-up", last.runsCompleted(), is(2L));
            assertThat("the follow-up read the kept key alone", last.scanned(), is(1L));
            assertThat(last.dropped(), is(1L));
            assertThat(last.kept(), is(0L));
            assertThat("dropped here", engine.get(late[0]), is(Optional.empty()));
            assertThat("the owner holds the late write", new String(peerEngine.get(late[0]).orElseThrow().value(),
                    StandardCharsets.UTF_8), is("written late"));
            for (byte[] key : theirs) {
                assertThat("dropped here", engine.get(key), is(Optional.empty()));
            }
        }
    }

    /**
     * An owner down during a run gets what the run kept from a follow-up once it is up, without
     * the store being read again; an owner that stays down is tried {@value Cleanup#FOLLOW_UPS_MAX}
     * times after the run and then left for the next run asked for.
     */
    @Test
    void anOwnerDownDuringARunGetsItsRecordsFromAFollowUpOnceUp() throws Exception {
        List<byte[]> theirs = notOwnedHere(topology, 300);
        List<String> settled = new java.util.concurrent.CopyOnWriteArrayList<>();
        cleanup.whenSettled((view, factor) -> settled.add(view.epoch() + "/" + factor));

        cleanup.request();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (cleanup.status().runsCompleted() < 1 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat("the owner was down: kept", cleanup.status().kept(), is((long) theirs.size()));
        assertThat("a run that kept records settles nothing", settled, is(empty()));
        peerComesUp();
        CleanupStatus last = awaitDropped(cleanup, theirs);

        assertThat("the follow-up read the kept keys alone", last.scanned(), is((long) theirs.size()));
        assertThat(last.dropped(), is((long) theirs.size()));
        for (byte[] key : theirs) {
            assertThat("held by the owner", peerEngine.get(key).isPresent(), is(true));
        }
        assertThat("the follow-up that dropped the rest settles the whole run's view and factor", settled,
                is(List.of("0/1")));
    }

    /**
     * A run stopped (a leave rolled back) sends nothing after it ends: what it had not handed over
     * stays here, nothing is settled, no run follows; a run asked for later goes through.
     */
    @Test
    void aStoppedRunEndsBeforeItsNextRecordAndSettlesNothing() throws Exception {
        peerComesUp();
        Cleanup slow = new Cleanup(engine, topology, () -> 1, client, new ScanPacer(20_000), Duration.ofSeconds(2),
                FirstSourceBuckets.OwnDigest.NONE, RETRY_PAUSE, FOLLOW_UP_PAUSE);
        resources.add(slow);
        List<String> settled = new java.util.concurrent.CopyOnWriteArrayList<>();
        slow.whenSettled((view, factor) -> settled.add(view.epoch() + "/" + factor));
        List<byte[]> theirs = notOwnedHere(topology, 2_000); // about 20 KB a second: several seconds of reading

        slow.request();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (slow.status().scanned() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat("stopped within the wait", slow.stopRun(Duration.ofSeconds(10)), is(true));
        CleanupStatus stopped = slow.status();
        assertThat(stopped.running(), is(false));
        assertThat(stopped.toJson(), stopped.error(), org.hamcrest.Matchers.containsString("stopped before the end"));
        long here = theirs.stream().filter(key -> {
            try {
                return engine.get(key).isPresent();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).count();
        assertThat("records the run had not reached are still here", here > 0, is(true));
        Thread.sleep(FOLLOW_UP_PAUSE.toMillis() * 4);
        assertThat("no run after it", slow.status().runsCompleted(), is(stopped.runsCompleted()));
        assertThat(settled, is(empty()));

        slow.request();
        awaitDropped(slow, theirs);
        assertThat("a full run after it settles", settled, is(List.of("0/1")));
    }

    @Test
    void followUpsStopAfterTheLastOneWhileTheOwnerStaysDown() throws Exception {
        byte[] key = firstKeyOfThePeer();
        engine.apply(key, Record.value(100, key));

        cleanup.request();
        CleanupStatus last = awaitRunsSettled(cleanup, 1 + Cleanup.FOLLOW_UPS_MAX);

        assertThat("the run and every follow-up", last.runsCompleted(), is(1L + Cleanup.FOLLOW_UPS_MAX));
        assertThat(last.kept(), is(1L));
        assertThat("kept here", engine.get(key).isPresent(), is(true));
        assertThat("no follow-up after the last", cleanup.followUpScheduled(), is(false));
    }

    /** The first key, of k0, k1, ..., that the peer owns. */
    private byte[] firstKeyOfThePeer() {
        RendezvousPlacement placement = new RendezvousPlacement(topology);
        for (int i = 0; ; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
            if (!topology.isSelf(placement.owners(key, 1).getFirst())) {
                return key;
            }
        }
    }

    /**
     * A run the store fails (a read error while it scans) is followed by one over the whole store,
     * which hands every record over and settles: before, a node whose own cleanup failed kept the
     * copies it does not own until the next change of ownership or its next start.
     */
    @Test
    void aRunTheStoreFailedIsFollowedByOneOverTheWholeStore() throws Exception {
        List<byte[]> theirs = notOwnedHere(topology, 300);
        peerComesUp();
        java.util.concurrent.atomic.AtomicBoolean failNext = new java.util.concurrent.atomic.AtomicBoolean(true);
        StorageEngine failsOnce = WatchedEngine.of(engine, (method, args, result) -> {
            if (method.getName().equals("range") && failNext.getAndSet(false)) {
                ((RangeCursor) result).close();
                throw new IllegalStateException("a read error, once");
            }
            return result;
        });
        Cleanup run = new Cleanup(failsOnce, topology, () -> 1, client, new ScanPacer(1_000_000_000L), Duration.ofSeconds(2),
                FirstSourceBuckets.OwnDigest.NONE, RETRY_PAUSE, FOLLOW_UP_PAUSE);
        resources.add(run);
        List<String> settled = new java.util.concurrent.CopyOnWriteArrayList<>();
        run.whenSettled((view, factor) -> settled.add(view.epoch() + "/" + factor));

        run.request();
        CleanupStatus last = awaitRunsSettled(run, 2);

        assertThat("the store failed the first run", failNext.get(), is(false));
        assertThat("the follow-up read the whole store", last.scanned(), is(300L));
        assertThat(last.dropped(), is((long) theirs.size()));
        for (byte[] key : theirs) {
            assertThat("dropped here", engine.get(key), is(Optional.empty()));
            assertThat("held by the owner", peerEngine.get(key).isPresent(), is(true));
        }
        assertThat("settled once the follow-up left nothing", settled, is(List.of("0/1")));
    }

    /** Waits (at most 20 s) until {@code runs} runs completed and none runs or waits; @return the last. */
    private static CleanupStatus awaitRunsSettled(Cleanup cleanup, long runs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && (cleanup.status().running() || cleanup.followUpScheduled()
                || cleanup.status().runsCompleted() < runs)) {
            Thread.sleep(5);
        }
        return cleanup.status();
    }

    /** Waits (at most 20 s) until none of {@code keys} is held here and no run runs; @return the last run. */
    private CleanupStatus awaitDropped(Cleanup cleanup, List<byte[]> keys) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            boolean anyHere = false;
            for (byte[] key : keys) {
                anyHere |= engine.get(key).isPresent();
            }
            if (!anyHere && !cleanup.status().running()) {
                break;
            }
            Thread.sleep(5);
        }
        for (byte[] key : keys) {
            assertThat("dropped here", engine.get(key), is(Optional.empty()));
        }
        return cleanup.status();
    }

    private void peerComesUp() throws Exception {
        ServerConfig config = ServerConfig.builder().host("127.0.0.1").port(peerPort).eventLoops(1).handlerThreads(2)
                .h1Limits(H1Limits.defaults()).shutdownGrace(Duration.ofSeconds(1)).build();
        resources.add(HttpServer.start(config, TestAuth.handler("http://127.0.0.1:" + peerPort, peerEngine, PEER_CLOCK)));
    }
}
