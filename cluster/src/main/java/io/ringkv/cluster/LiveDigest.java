package io.ringkv.cluster;

import io.ringkv.store.Record;
import io.ringkv.store.RecordChangeListener;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.util.concurrent.atomic.AtomicLongArray;

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
 * <p>Threading: {@link #changed} from any writing thread; {@link #snapshot} from any thread. A
 * snapshot taken while writes land may mix a bucket's state before and after a write: the
 * comparison it feeds then sees that bucket as differing and compares its versions, as it would
 * for any write that lands between two nodes' digests.
 */
final class LiveDigest implements RecordChangeListener {
    private final AtomicLongArray buckets = new AtomicLongArray(DigestBuckets.BUCKETS);

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
        buckets.getAndAccumulate(DigestBuckets.bucketOf(key), delta, (bucket, change) -> bucket ^ change);
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
