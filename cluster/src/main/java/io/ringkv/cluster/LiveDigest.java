package io.ringkv.cluster;

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
 * <p>Built by one full scan when attached (at node start, before the node serves: the engine must
 * not be written meanwhile, or a change made during the scan could be counted twice or missed),
 * then maintained by the engine's {@link RecordChangeListener}. Two replicas in sync compare 8 KiB
 * and read nothing from their stores.
 *
 * <p>It also remembers, per bucket, the last {@value #RECENT_PER_BUCKET} keys changed in it
 * ({@link #recentKeys}): when a bucket differs because a peer missed a few recent writes, those
 * keys are usually among them, and anti-entropy can send them without scanning the store for the
 * bucket's keys. A slot is overwritten by the next change in its bucket; the list is a good guess,
 * never a complete one.
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

    private LiveDigest() {
    }

    /** Scans {@code engine} once for the starting digest and keeps it current from then on. */
    static LiveDigest attach(StorageEngine engine) throws StoreException {
        LiveDigest digest = new LiveDigest();
        long[] start = DigestBuckets.digest(engine);
        for (int i = 0; i < start.length; i++) {
            digest.buckets.set(i, start[i]);
        }
        engine.setChangeListener(digest);
        return digest;
    }

    @Override
    public void changed(byte[] key, Record before, Record after) {
        long delta = (before == null ? 0 : DigestBuckets.versionHash(key, before))
                ^ (after == null ? 0 : DigestBuckets.versionHash(key, after));
        int bucket = DigestBuckets.bucketOf(key);
        buckets.getAndAccumulate(bucket, delta, (value, change) -> value ^ change);
        int slot = nextSlot.getAndIncrement(bucket) & (RECENT_PER_BUCKET - 1);
        recent.set(bucket * RECENT_PER_BUCKET + slot, key);
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
