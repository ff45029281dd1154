package io.ringkv.cluster;

import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.RecordChangeListener;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * This node's anti-entropy digest ({@link DigestBuckets}), kept up to date on every write instead
 * of recomputed by a scan of the store for every round and every peer's request. A bucket's
 * digest is the XOR of its records' version hashes, so a change is one XOR of the bucket with the
 * hash of the record replaced and the hash of the record stored; XOR's order does not matter, so
 * concurrent changes need no lock, only an atomic update of one of 1,024 longs.
 *
 * <p>Built by one full scan when attached, then maintained by the engine's
 * {@link RecordChangeListener}. The scan reads the store as of the instant the digest starts
 * hearing of changes ({@link StorageEngine#setChangeListenerAndScan}), so the store may be
 * written meanwhile (a digest built again when the owners change, while the node serves) and no
 * write is counted twice or missed. Two replicas in sync compare 8 KiB
 * and read nothing from their stores.
 *
 * <p>It also remembers, per bucket, the last {@value #RECENT_PER_BUCKET} keys changed in it
 * ({@link #recentKeys}): when a bucket differs because a peer missed a few recent writes, those
 * keys are usually among them, and anti-entropy can send them without scanning the store for the
 * bucket's keys. A slot is overwritten by the next change in its bucket; the list is a good guess,
 * never a complete one.
 *
 * <h2>Per peer: only the keys both nodes own</h2>
 * With a replication factor below the cluster size, two nodes hold different sets of keys, and a
 * digest of everything each holds would differ in nearly every bucket. So the digest is also kept
 * per peer, of the keys this node and that peer both own; which keys those are depends on the
 * factor, which can change while the node runs. Two nodes both own a key under factor {@code rf}
 * when the later of their two ranks in the key's rendezvous order is at most {@code rf}; so each
 * record is counted, per peer, in the level named by that later rank (2 to n), and the peer's
 * digest under {@code rf} is the XOR of levels 2 to {@code rf} ({@link #snapshot(ClusterNode, int)}).
 * No factor change needs a rescan. The cost: per write, one rank computation (a hash per node) and
 * one atomic XOR per peer; in memory, n - 1 levels of 8 KiB per peer (128 KiB for 5 nodes, 1.9 MiB
 * for 16). Attached without a placement (tests of the digest alone), it keeps the whole-store digest only.
 *
 * <p>Threading: {@link #changed} from any writing thread; {@link #snapshot} from any thread. A
 * snapshot taken while writes land may mix a bucket's state before and after a write: the
 * comparison it feeds then sees that bucket as differing and compares its versions, as it would
 * for any write that lands between two nodes' digests.
 */
final class LiveDigest implements RecordChangeListener {
    /** Keys remembered per bucket: 16 K references and the keys they hold, a few hundred KiB for short keys. */
    static final int RECENT_PER_BUCKET = 16;

    private final AtomicLongArray buckets = new AtomicLongArray(DigestBuckets.BUCKETS);
    /** Bucket b's recent keys are slots [b * RECENT_PER_BUCKET, (b + 1) * RECENT_PER_BUCKET). */
    private final AtomicReferenceArray<byte[]> recent = new AtomicReferenceArray<>(DigestBuckets.BUCKETS * RECENT_PER_BUCKET);
    /** Per bucket, the slot the next change takes (modulo {@link #RECENT_PER_BUCKET}). */
    private final AtomicIntegerArray nextSlot = new AtomicIntegerArray(DigestBuckets.BUCKETS);

    /** Null without per-peer digests. */
    private final RendezvousPlacement placement;
    private final int selfIndex;
    private final int levels;
    /** Node i's level m (2..n), bucket b at {@code ((i * levels) + m - 2) * BUCKETS + b}; self's row stays zero. */
    private final AtomicLongArray perPeer;

    private LiveDigest(RendezvousPlacement placement, ClusterNode self) {
        this.placement = placement;
        if (placement == null) {
            this.selfIndex = -1;
            this.levels = 0;
            this.perPeer = null;
        } else {
            int n = placement.clusterSize();
            this.selfIndex = placement.indexOf(self);
            this.levels = n - 1;
            this.perPeer = new AtomicLongArray(n * levels * DigestBuckets.BUCKETS);
        }
    }

    /** The whole-store digest only, no per-peer ones: scans {@code engine} once and keeps it current. */
    static LiveDigest attach(StorageEngine engine) throws StoreException {
        return attach(engine, null, null);
    }

    /**
     * Scans {@code engine} once for the starting digests, the whole store's and each peer's of
     * the keys both own at every factor, and keeps them current from then on.
     */
    static LiveDigest attach(StorageEngine engine, RendezvousPlacement placement, ClusterNode self) throws StoreException {
        return attach(engine, placement, self, null);
    }

    /**
     * As {@link #attach(StorageEngine, RendezvousPlacement, ClusterNode)} while the store is
     * written and {@code previous} (null: none) is in use: the scan reads the store as of the
     * moment this digest starts hearing of changes ({@link StorageEngine#setChangeListenerAndScan}),
     * so no write made during it is counted twice or missed, and {@code previous} goes on hearing
     * of every change until the caller makes this digest the engine's only listener.
     */
    static LiveDigest attach(StorageEngine engine, RendezvousPlacement placement, ClusterNode self, LiveDigest previous)
            throws StoreException {
        try {
            return attach(engine, placement, self, previous, null);
        } catch (InterruptedException impossible) { // no pacer, no sleep
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * As {@link #attach(StorageEngine, RendezvousPlacement, ClusterNode, LiveDigest)}, the scan
     * paced by {@code pacer} (null: full speed), for a digest built ahead of need while the node
     * serves. Interrupted, it returns nothing and leaves the engine telling its changes to
     * {@code previous} and the unfinished digest both: the caller puts back the listener it wants.
     */
    static LiveDigest attach(StorageEngine engine, RendezvousPlacement placement, ClusterNode self, LiveDigest previous,
                             ScanPacer pacer) throws StoreException, InterruptedException {
        LiveDigest digest = new LiveDigest(placement, self);
        RecordChangeListener listener = previous == null ? digest : (key, before, after) -> {
            previous.changed(key, before, after);
            digest.changed(key, before, after);
        };
        try (RangeCursor cursor = engine.setChangeListenerAndScan(listener)) {
            int sincePace = 0;
            while (cursor.next()) {
                digest.count(cursor.key(), DigestBuckets.versionHash(cursor.key(), cursor.record()));
                if (pacer != null && ++sincePace == ScanPacer.BATCH) {
                    pacer.scanned(sincePace);
                    sincePace = 0;
                }
            }
        }
        return digest;
    }

    @Override
    public void changed(byte[] key, Record before, Record after) {
        long delta = (before == null ? 0 : DigestBuckets.versionHash(key, before))
                ^ (after == null ? 0 : DigestBuckets.versionHash(key, after));
        int bucket = count(key, delta);
        int slot = nextSlot.getAndIncrement(bucket) & (RECENT_PER_BUCKET - 1);
        recent.set(bucket * RECENT_PER_BUCKET + slot, key);
    }

    /** XORs {@code delta} into the key's bucket of the whole digest and of each peer's level for it; returns the bucket. */
    private int count(byte[] key, long delta) {
        int bucket = DigestBuckets.bucketOf(key);
        if (delta == 0) {
            return bucket;
        }
        buckets.getAndAccumulate(bucket, delta, (value, change) -> value ^ change);
        if (placement != null) {
            int[] ranks = placement.ranks(key);
            int mine = ranks[selfIndex];
            for (int node = 0; node < ranks.length; node++) {
                if (node != selfIndex) {
                    int level = Math.max(mine, ranks[node]);
                    perPeer.getAndAccumulate(slot(node, level, bucket), delta, (value, change) -> value ^ change);
                }
            }
        }
        return bucket;
    }

    private int slot(int node, int level, int bucket) {
        return ((node * levels) + level - 2) * DigestBuckets.BUCKETS + bucket;
    }

    /**
     * The digest of the keys this node and {@code peer} both own under replication factor {@code rf}
     * (the whole store's when {@code rf} covers every node, or without per-peer digests).
     *
     * @throws IllegalArgumentException for a node not of the placement, or {@code rf < 1}
     */
    long[] snapshot(ClusterNode peer, int rf) {
        if (rf < 1) {
            throw new IllegalArgumentException("replication factor must be at least 1, got " + rf);
        }
        if (placement == null || rf >= placement.clusterSize()) {
            return snapshot();
        }
        int node = placement.indexOf(peer);
        long[] digest = new long[DigestBuckets.BUCKETS];
        for (int level = 2; level <= rf; level++) {
            int base = slot(node, level, 0);
            for (int b = 0; b < digest.length; b++) {
                digest[b] ^= perPeer.get(base + b);
            }
        }
        return digest;
    }

    /** The keys lately changed in {@code bucketSet}'s buckets, each once, in no particular order. */
    List<byte[]> recentKeys(BitSet bucketSet) {
        List<byte[]> keys = new ArrayList<>();
        for (int bucket = bucketSet.nextSetBit(0); bucket >= 0; bucket = bucketSet.nextSetBit(bucket + 1)) {
            int first = keys.size();
            for (int slot = 0; slot < RECENT_PER_BUCKET; slot++) {
                byte[] key = recent.get(bucket * RECENT_PER_BUCKET + slot);
                if (key != null && !seen(keys, first, key)) {
                    keys.add(key);
                }
            }
        }
        return keys;
    }

    /** A key can only repeat within its own bucket: look there. */
    private static boolean seen(List<byte[]> keys, int from, byte[] key) {
        for (int i = from; i < keys.size(); i++) {
            if (Arrays.equals(keys.get(i), key)) {
                return true;
            }
        }
        return false;
    }

    /** The digest now: {@link DigestBuckets#BUCKETS} longs, a copy. */
    long[] snapshot() {
        long[] copy = new long[DigestBuckets.BUCKETS];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = buckets.get(i);
        }
        return copy;
    }
}
