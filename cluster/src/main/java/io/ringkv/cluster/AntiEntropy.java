package io.ringkv.cluster;

import io.ringkv.http.LogText;
import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Anti-entropy: this node compares its data with each peer's and sends the peer every record it
 * holds newer, so replicas converge even for keys nobody reads and writes no hint carried.
 *
 * <h2>A round, for each peer</h2>
 * <ol>
 *   <li>Both sides read their {@link DigestBuckets digest} (1024 bucket hashes) from memory, where
 *       it is kept per write ({@link LiveDigest}); the peer's comes over {@code GET
 *       /internal/v0/digest} (8 KiB). Equal buckets are done: two replicas in sync cost one 8 KiB
 *       answer, no scan and no record on either side.</li>
 *   <li>For the differing buckets, this node first sends the peer its records of the keys lately
 *       changed in them ({@link LiveDigest#recentKeys}: point reads, no scan) and asks for the
 *       peer's digest again; a peer that missed a few recent writes is usually level then.</li>
 *   <li>For all the buckets still differing at once, the peer streams the versions (key, timestamp,
 *       tombstone; no values) of its keys in those buckets in key order
 *       ({@code GET /internal/v0/versions}); this node scans its own keys of those buckets in key
 *       order, merging the two streams as it goes, and, for
 *       every record it holds that the peer lacks or holds older, sends the record
 *       ({@code PUT /internal/v0/writes}, applied by last-write-wins), except a tombstone
 *       older than the grace period that the peer lacks, or a record expired for longer than it:
 *       the peer has most likely collected it already ({@link #withheld}). A value that never
 *       expires is sent whatever its age; an expired record is sent as what it is, with its
 *       expiry, so that it replaces an older value on the peer.</li>
 * </ol>
 * Records the peer holds newer are not fetched: the peer's own round sends them. So every node
 * only ever pushes, and each pair converges within one round of each side.
 *
 * <h2>Which nodes hold a key</h2>
 * Its owners: the first {@code rf} nodes of its rendezvous order ({@link ReplicationFactor}). A
 * node compares with each peer only the keys both own, under this node's factor, which it sends
 * with its digest and versions requests ({@link InternalProtocol#RF_PARAM}; the peer's digest of
 * them is kept per write, {@link LiveDigest}); so it pushes a key only to peers that own it, and a
 * key written with a smaller {@code from} reaches all its owners by the next round. A copy beyond
 * the owners (a write with an explicit {@code from} larger than {@code rf}) is neither compared nor
 * pushed: it stays where the write put it, is read only by requests that name that many replicas
 * (whose read repair then brings it up to date), and no range shows it ({@link ClusterRange}).
 * With {@code rf} equal to the cluster size every node owns every key and compares all it holds.
 *
 * <h2>Bounds</h2>
 * Scans happen only for differing buckets (this node's scan of its keys in a batch, the peer's
 * versions stream), and every scan on a node, its own and those it runs for peers' versions
 * requests, shares one pace of {@link AntiEntropySettings#scanRatePerSecond()} records per second
 * ({@link ScanPacer}); a comparison holds one entry of each stream, whatever the store's size.
 * The live digest is built by one scan when this is constructed, at node start.
 *
 * <p>Threading: rounds run on one daemon thread ({@code ringkv-anti-entropy}), which waits for each
 * answer of the peer; {@link #requestRound} and {@link #status} from any thread.
 */
public final class AntiEntropy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AntiEntropy.class);
    private static final int PUSH_RECORDS_MAX = 256;

    /**
     * What a node reports about its anti-entropy.
     *
     * @param running          a round is under way
     * @param roundsCompleted  rounds finished since start (a round that failed against a peer still finishes)
     * @param lastRoundMillis  duration of the last finished round
     * @param bucketsDiffering buckets found different in the last round, all peers together
     * @param recordsPushed    records sent to peers since start
     * @param peersFailed      peers that could not be compared in the last round
     * @param bucketsWithoutScan differing buckets since start that the recent-keys pass brought level,
     *                           so that no scan was needed for them
     */
    public record Status(boolean running, long roundsCompleted, long lastRoundMillis, long bucketsDiffering,
                         long recordsPushed, long peersFailed, long bucketsWithoutScan) {
        public String toJson() {
            return "{\"running\":" + running + ",\"roundsCompleted\":" + roundsCompleted + ",\"lastRoundMillis\":"
                    + lastRoundMillis + ",\"bucketsDiffering\":" + bucketsDiffering + ",\"recordsPushed\":"
                    + recordsPushed + ",\"peersFailed\":" + peersFailed + ",\"bucketsWithoutScan\":"
                    + bucketsWithoutScan + "}";
        }
    }

    private final StorageEngine engine;
    private final Predicate<Record> collectedElsewhere;
    private final ClusterNodes topology;
    private final ReplicaClient client;
    private final AntiEntropySettings settings;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean roundRequested = new AtomicBoolean();
    private final AtomicLong roundsCompleted = new AtomicLong();
    private final AtomicLong recordsPushed = new AtomicLong();
    /** Refused records are logged at most once a minute per peer: a round may meet many. */
    private final RateLimitedLog refusals = new RateLimitedLog(60_000);
    /** Differing buckets the recent-keys pass brought level, so that no scan was needed for them. */
    private final AtomicLong recentPassesSufficed = new AtomicLong();
    private final AtomicReference<Status> last = new AtomicReference<>(new Status(false, 0, 0, 0, 0, 0, 0));
    /** Paces this node's scans, and those it runs for peers ({@link InternalApiHandler}). */
    private final ScanPacer pacer;
    private int scannedSincePace;
    /**
     * The owners this node compares with and its digest kept per write for them; the digest is null
     * in a one-node cluster, which compares with nobody. Replaced whole when the owners change.
     */
    private volatile Digested digested;
    /**
     * The digest built ahead for the owners after the change in progress ({@link #followOwners});
     * null when none is. Confined to this object's thread.
     */
    private Digested prepared;
    private final IntSupplier replicationFactor;

    /**
     * A placement and the live digest built for it. The digest keeps per-peer levels only while this
     * node is one of the owners (a joining node compares with nobody until it owns keys).
     */
    private record Digested(RendezvousPlacement placement, LiveDigest digest) {
        boolean owner(ClusterNode self) {
            return placement.contains(self);
        }
    }

    /**
     * @param collectedElsewhere true for a tombstone so old that peers may have collected it
     *                           ({@link TombstoneCollector#mayBeCollectedElsewhere}): such a tombstone
     *                           is not sent to a peer that lacks the key; values are sent whatever it says
     */
    public AntiEntropy(StorageEngine engine, ClusterNodes topology, ReplicaClient client, AntiEntropySettings settings,
                       Predicate<Record> collectedElsewhere) throws StoreException {
        this(engine, topology, client, settings, collectedElsewhere, topology::size);
    }

    /**
     * @param replicationFactor how many nodes own each key now ({@link ReplicationFactor#current}),
     *                          read at the start of each round
     */
    public AntiEntropy(StorageEngine engine, ClusterNodes topology, ReplicaClient client, AntiEntropySettings settings,
                       Predicate<Record> collectedElsewhere, IntSupplier replicationFactor) throws StoreException {
        this.engine = engine;
        this.replicationFactor = replicationFactor;
        // One scan now, while nothing writes (before the node serves); every round and every peer's
        // digest request then reads the live digest instead of the store.
        this.digested = digestFor(engine, topology, null);
        this.collectedElsewhere = collectedElsewhere;
        this.topology = topology;
        this.client = client;
        this.settings = settings;
        this.pacer = new ScanPacer(settings.scanRatePerSecond());
        this.thread = DaemonScheduler.named("ringkv-anti-entropy");
        topology.onChange((before, after) -> {
            if (!sameNodes(before.placement(), after.placement()) || before.changing() || after.changing()) {
                try {
                    thread.execute(this::followOwners);
                } catch (java.util.concurrent.RejectedExecutionException closed) {
                    // closed: no more rounds to compare for
                }
            }
        });
    }

    /** @param previous the digest in use, which hears of every change until the new one replaces it (null: none) */
    private static Digested digestFor(StorageEngine engine, ClusterNodes topology, LiveDigest previous) throws StoreException {
        RendezvousPlacement placement = topology.placement();
        if (topology.others().isEmpty()) {
            return new Digested(placement, null);
        }
        boolean owner = placement.contains(topology.self());
        return new Digested(placement, LiveDigest.attach(engine, owner ? placement : null, topology.self(), previous));
    }

    private static boolean sameNodes(RendezvousPlacement a, RendezvousPlacement b) {
        return java.util.Set.copyOf(a.nodes()).equals(java.util.Set.copyOf(b.nodes()));
    }

    /**
     * Keeps the digest for the owners of the current view, on this object's thread. While a change
     * is in progress (a member joining, leaving or being replaced), a second digest is built for the
     * owners the change will leave ({@link MembershipView#futurePlacement()}), its scan paced by
     * {@link #pacer} and hearing every write from its start, as the current one does; the epoch
     * that completes the change then makes it the digest in use at once. Without it, every node
     * scanned its whole store at that same moment, under load (a membership bench's phase lines put
     * this thread among the busiest at the epoch change). A change that ends otherwise (aborted,
     * or followed by another) drops the digest built ahead, and an owners' change it was not built
     * for builds the digest then, as before ({@link #rebuildDigest}).
     */
    private void followOwners() {
        MembershipView view = topology.view();
        try {
            if (!sameNodes(digested.placement(), view.placement())) {
                Digested ready = prepared;
                prepared = null;
                if (ready != null && sameNodes(ready.placement(), view.placement())) {
                    digested = ready;
                    if (ready.digest() != null) {
                        engine.setChangeListener(ready.digest()); // the old one is no longer read
                    }
                    LOG.info("anti-entropy digest for the owners at epoch {}: the one built during the change", view.epoch());
                } else {
                    rebuildDigest();
                }
            }
            RendezvousPlacement future = view.futurePlacement();
            if (view.changing() && future.clusterSize() > 1 && !sameNodes(future, digested.placement())) {
                if (prepared == null || !sameNodes(prepared.placement(), future)) {
                    prepare(view);
                }
            } else if (prepared != null) {
                prepared = null;
                if (digested.digest() != null) {
                    engine.setChangeListener(digested.digest());
                }
            }
        } catch (StoreException e) {
            LOG.error("anti-entropy digest could not follow the owners at epoch {}; comparisons use the ones before",
                    view.epoch(), e);
        }
    }

    /** Builds {@link #prepared} for the owners {@code view}'s change will leave (paced; blocks this thread). */
    private void prepare(MembershipView view) throws StoreException {
        RendezvousPlacement future = view.futurePlacement();
        LiveDigest current = digested.digest();
        prepared = null; // the attach below replaces any digest built ahead for another change as a listener
        try {
            LiveDigest digest = LiveDigest.attach(engine, future.contains(topology.self()) ? future : null,
                    topology.self(), current, pacer);
            prepared = new Digested(future, digest);
            LOG.info("anti-entropy digest built ahead for the owners after the change in progress at epoch {}", view.epoch());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closing
            if (current != null) {
                engine.setChangeListener(current);
            }
        }
    }

    /**
     * Builds the digest again for the owners of the current view (on this object's thread, between
     * rounds). The store is written meanwhile, which the new digest's scan allows for
     * ({@link LiveDigest#attach(StorageEngine, RendezvousPlacement, ClusterNode, LiveDigest)}); the old
     * digest serves comparisons until the new one is complete. (Before, the new digest heard of no
     * change until its scan ended, so each write to a key the scan had passed left its bucket off
     * until the next rebuild: a bucket compared by versions in every round, and sent whole by a
     * join's second source.)
     */
    private void rebuildDigest() {
        try {
            Digested next = digestFor(engine, topology, digested.digest());
            digested = next;
            if (next.digest() != null) {
                engine.setChangeListener(next.digest()); // the old one is no longer read
            }
            LOG.info("anti-entropy digest rebuilt for the owners at epoch {}", topology.view().epoch());
        } catch (StoreException e) {
            LOG.error("anti-entropy digest could not be rebuilt for the new owners; comparisons use the old ones", e);
        }
    }

    /** Schedules rounds every {@link AntiEntropySettings#interval()}; a one-node cluster has none. */
    public AntiEntropy start() {
        if (!topology.others().isEmpty()) {
            long every = settings.interval().toMillis();
            thread.scheduleWithFixedDelay(this::roundLogged, every, every, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /**
     * Asks for a round now (it starts at once unless one is running, then right after it).
     *
     * @return the number of rounds completed so far: the requested round is done once
     *         {@link Status#roundsCompleted()} exceeds it
     */
    public long requestRound() {
        long completed = roundsCompleted.get();
        if (!topology.others().isEmpty() && roundRequested.compareAndSet(false, true)) {
            thread.execute(this::roundLogged);
        }
        return completed;
    }

    public Status status() {
        Status done = last.get();
        return new Status(running.get(), roundsCompleted.get(), done.lastRoundMillis(), done.bucketsDiffering(),
                recordsPushed.get(), done.peersFailed(), recentPassesSufficed.get());
    }

    private void roundLogged() {
        roundRequested.set(false);
        running.set(true);
        long started = System.nanoTime();
        long differing = 0;
        long failed = 0;
        try {
            Digested current = digested;
            int rf = Math.min(replicationFactor.getAsInt(), current.placement().clusterSize());
            for (ClusterNode peer : current.owner(topology.self()) ? current.placement().nodes() : List.<ClusterNode>of()) {
                if (topology.isSelf(peer)) {
                    continue;
                }
                try {
                    differing += compareWith(current, peer, rf);
                } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
                    failed++;
                    LOG.debug("anti-entropy with {} failed; next round in {}: {}", peer, settings.interval(), e.toString());
                }
            }
        } catch (StoreException e) {
            failed = topology.others().size();
            LOG.warn("anti-entropy round failed reading the local store", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } finally {
            long millis = (System.nanoTime() - started) / 1_000_000;
            last.set(new Status(false, 0, millis, differing, 0, failed, 0));
            roundsCompleted.incrementAndGet();
            running.set(false);
        }
        if (differing > 0 || failed > 0) {
            LOG.info("anti-entropy round: {} differing buckets, {} records pushed in all, {} peers not reached",
                    differing, recordsPushed.get(), failed);
        }
    }

    /** @return how many buckets differed */
    private int compareWith(Digested current, ClusterNode peer, int rf)
            throws IOException, StoreException, ExecutionException, TimeoutException, InterruptedException {
        LiveDigest digest = current.digest();
        long[] mine = digest.snapshot(peer, rf);
        long[] theirs = client.digest(peer, rf).get(answerMillis(), TimeUnit.MILLISECONDS);
        BitSet differing = DigestBuckets.differing(mine, theirs);
        if (!differing.isEmpty()) {
            BitSet left = pushRecentKeys(current, peer, rf, differing);
            if (!left.isEmpty()) {
                repairBuckets(current, peer, rf, left);
            }
        }
        return differing.cardinality();
    }

    /** Whether this node and {@code peer} both own {@code key} under {@code rf}: the keys they compare. */
    private boolean shared(RendezvousPlacement placement, byte[] key, ClusterNode peer, int rf) {
        return rf >= placement.clusterSize() || placement.bothOwn(key, topology.self(), peer, rf);
    }

    /**
     * The cheap first pass for differing buckets: sends the peer this node's records of the keys
     * lately changed in them ({@link LiveDigest#recentKeys}, point reads, no scan), which is what
     * it usually lacks after it missed a few writes, then asks for its digest again.
     *
     * @return the buckets that still differ and need the scan of {@link #repairBuckets}: those of
     *         {@code differing} whose digests still disagree (a bucket that differs for other
     *         reasons, such as records the peer holds newer or keys changed longer ago, stays)
     */
    private BitSet pushRecentKeys(Digested current, ClusterNode peer, int rf, BitSet differing)
            throws IOException, StoreException, ExecutionException, TimeoutException, InterruptedException {
        PushBatch push = new PushBatch(peer);
        LiveDigest digest = current.digest();
        List<byte[]> keys = digest.recentKeys(differing);
        keys.sort(Arrays::compareUnsigned); // a record batch is in ascending key order (RecordFrameReader)
        for (byte[] key : keys) {
            if (!shared(current.placement(), key, peer, rf)) {
                continue;
            }
            throttle();
            Record mine = engine.get(key).orElse(null);
            // The peer may lack the key: an old tombstone is withheld (see withheld).
            if (mine != null && !withheld(mine)) {
                push.add(key, mine);
            }
        }
        if (push.finish() == 0) {
            return differing;
        }
        long[] theirs = client.digest(peer, rf).get(answerMillis(), TimeUnit.MILLISECONDS);
        BitSet left = DigestBuckets.differing(current.digest().snapshot(peer, rf), theirs);
        left.and(differing);
        recentPassesSufficed.addAndGet(differing.cardinality() - left.cardinality());
        return left;
    }

    /**
     * One pass over both sides for every differing bucket: the peer streams its versions of the
     * keys in those buckets in key order while this node scans its own keys in key order, and the
     * two are merged as they go, so nothing is held but the current entry of each (before, the
     * buckets went 64 at a time, each batch a full scan on both sides, with the peer's versions
     * of the batch held in a map).
     */
    private void repairBuckets(Digested current, ClusterNode peer, int rf, BitSet buckets)
            throws IOException, StoreException, ExecutionException, TimeoutException, InterruptedException {
        PushBatch push = new PushBatch(peer);
        try (RecordStream theirs = client.versions(peer, buckets, rf).get(answerMillis(), TimeUnit.MILLISECONDS);
             RangeCursor cursor = engine.range(new byte[0], null)) {
            boolean theirsLeft = theirs.next();
            while (cursor.next()) {
                throttle();
                byte[] key = cursor.key();
                if (!buckets.get(DigestBuckets.bucketOf(key)) || !shared(current.placement(), key, peer, rf)) {
                    continue;
                }
                // Keys the peer holds and this node lacks are passed: the peer's own round sends them.
                while (theirsLeft && Arrays.compareUnsigned(theirs.key(), key) < 0) {
                    theirsLeft = theirs.next();
                }
                Record mine = cursor.record();
                Record their = theirsLeft && Arrays.equals(theirs.key(), key) ? theirs.record() : null;
                boolean send = their == null ? !withheld(mine) : BucketVersionStream.newerVersion(mine, their);
                if (send) {
                    push.add(key, mine);
                }
            }
        }
        push.finish();
    }

    /**
     * Records on their way to one peer, added in ascending key order (as the peer requires), sent
     * at most {@value #PUSH_RECORDS_MAX} at a time in requests the peer takes ({@link RecordPusher}:
     * bounded by bytes before a record joins, a record too large for a batch alone on its own). A
     * record the peer refuses is skipped for this round and the pass goes on. Round thread only.
     */
    private final class PushBatch implements RecordPusher.Outcomes {
        private final ClusterNode peer;
        private final RecordPusher pusher;

        PushBatch(ClusterNode peer) {
            this.peer = peer;
            this.pusher = new RecordPusher(client, peer, PUSH_RECORDS_MAX, java.time.Duration.ofMillis(answerMillis()), this);
        }

        void add(byte[] key, Record record) throws ExecutionException, TimeoutException, InterruptedException {
            pusher.add(key, record);
        }

        /** Sends what is left; returns how many records the peer took in all. */
        int finish() throws ExecutionException, TimeoutException, InterruptedException {
            return pusher.finish();
        }

        @Override
        public void taken(int records) {
            recordsPushed.addAndGet(records);
        }

        @Override
        public void refused(byte[] key, Record record, RecordsRefusedException why) {
            if (refusals.allow(peer.id())) {
                LOG.warn("anti-entropy: {} refused a record of {} value bytes ({}); skipped this round, the rest goes on",
                        peer, record.value().length, why.getMessage());
            }
        }
    }

    /**
     * Whether a record is kept from a peer that lacks its key: only a tombstone older than the
     * grace period, or a record expired for longer than the grace period (which is collected as a
     * tombstone is, and shadows older values as a tombstone does; what follows holds for it as
     * well). The peer most likely collected it already; sending it back would only have
     * the peer store it and collect it again. Withholding a tombstone from a peer that lacks the
     * key is always safe, whatever the clocks say: there is no value there for it to shadow, and
     * should a stale value reach that peer later, the peer then holds an older version, and
     * tombstones are sent to such a peer whatever their age.
     *
     * <p>A value is never withheld, whatever its age: a peer that lacks it (a node wiped and
     * restarted empty, a key written with a smaller {@code from}) must get it, or the key stays
     * on fewer replicas for good. The hazard would be a peer that lacks the key because it
     * collected a newer tombstone while this node still holds the older value: it would come
     * back. By design that cannot happen: this node, holding an older version, was sent the
     * tombstone by every peer's round within the grace period (which exceeds the anti-entropy
     * interval and the hints' age), and the tombstone replaced the value here. The one way
     * around it is a node away from its peers (down, cut off) longer than the grace period: such
     * a node must be wiped before it rejoins (docs/cluster.md, Tombstone collection).
     */
    private boolean withheld(Record record) {
        return (record.tombstone() || record.expires()) && collectedElsewhere.test(record);
    }

    private long answerMillis() {
        return client.requestTimeout().toMillis() * 4;
    }

    /** Keeps the local scan at the node's scan pace (one thread: plain field). */
    private void throttle() throws InterruptedException {
        if (++scannedSincePace == ScanPacer.BATCH) {
            pacer.scanned(scannedSincePace);
            scannedSincePace = 0;
        }
    }

    /** This node's digest now, from the live digest: no scan. Null in a one-node cluster. */
    long[] digestNow() {
        LiveDigest digest = digested.digest();
        return digest == null ? null : digest.snapshot();
    }

    /**
     * This node's digest of the keys it and {@code peerId} both own under {@code rf}, for that peer's
     * round: no scan. Null in a one-node cluster.
     *
     * @throws IllegalArgumentException for an id not of this cluster, or {@code rf} outside 1..n
     */
    long[] digestFor(String peerId, int rf) {
        Digested current = digested;
        RendezvousPlacement placement = current.placement();
        ReplicationFactor.check(rf, placement.clusterSize());
        if (current.digest() == null || rf == placement.clusterSize()) {
            return current.digest() == null ? null : current.digest().snapshot(); // every node owns every key
        }
        if (!current.owner(topology.self())) {
            throw new IllegalArgumentException("this node owns no keys yet (it is joining): it compares with nobody");
        }
        return current.digest().snapshot(peer(placement, peerId), rf);
    }

    /**
     * This node's live digest of the keys it and {@code peer} both own under {@code rf}, for a
     * hand-over's comparison with a first source ({@link FirstSourceBuckets}): null unless the
     * digest is kept for the owners of {@code placement} and this node is one of them (a digest
     * being rebuilt for new owners, or of old ones, would be compared over other keys).
     */
    long[] digestAgainst(ClusterNode peer, int rf, RendezvousPlacement placement) {
        Digested current = digested;
        if (current.digest() == null || !current.owner(topology.self()) || !placement.contains(peer)
                || !sameNodes(current.placement(), placement)) {
            return null;
        }
        return rf >= placement.clusterSize() ? current.digest().snapshot() : current.digest().snapshot(peer, rf);
    }

    /** The keys this node and {@code peerId} both own under {@code rf}: what a versions answer to that peer holds. */
    Predicate<byte[]> sharedWith(String peerId, int rf) {
        RendezvousPlacement placement = digested.placement();
        ReplicationFactor.check(rf, placement.clusterSize());
        if (rf == placement.clusterSize()) {
            return key -> true;
        }
        if (!placement.contains(topology.self())) {
            throw new IllegalArgumentException("this node owns no keys yet (it is joining): it compares with nobody");
        }
        ClusterNode peer = peer(placement, peerId);
        return key -> shared(placement, key, peer, rf);
    }

    /** The owner named {@code peerId}: only an owner compares, and only with owners. */
    private ClusterNode peer(RendezvousPlacement placement, String peerId) {
        return placement.nodes().stream().filter(node -> node.id().equals(peerId) && !topology.isSelf(node)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("not an owner of this cluster: " + LogText.of(peerId)));
    }

    /** The pace of every anti-entropy scan on this node, the peers' digest and versions requests included. */
    ScanPacer pacer() {
        return pacer;
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("anti-entropy still running 5 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
