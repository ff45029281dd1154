package io.ringkv.cluster;

import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * The digest anti-entropy compares: every key a node holds falls into one of {@link #BUCKETS}
 * buckets by a hash of the key, and a bucket's digest is the XOR of a 64-bit hash of each of its
 * (key, timestamp, tombstone) triples. Two nodes holding the same versions of the same keys have
 * equal digests in every bucket; a differing bucket names the 1/1024 of the keys to look at. The
 * whole digest is {@value #BUCKETS} longs, 8 KiB on the wire, whatever the data size.
 *
 * <p>XOR makes the digest independent of scan order and lets a bucket be computed in one pass.
 * Values are left out on purpose: a version is identified by its timestamp and tombstone flag
 * (two different values with one timestamp is what the clock prevents, not what repair decides).
 * So are expiries, for the same reason: the coordinator computes a record's expiry from the
 * timestamp it stamps the write with, in the same step ({@link Ttl#expiresAtMillis}); a write
 * stamped again gets a new timestamp with its new expiry; and no two writes share a timestamp
 * (the node index is in its low bits). One timestamp therefore names one expiry, and two replicas
 * with the same timestamp for a key hold the same expiry.
 *
 * <p>Stateless; thread-safe.
 */
final class DigestBuckets {
    static final int BUCKETS = 1024;
    private static final int BUCKET_BITS = 10;
    private static final long BUCKET_SEED = 0x5EED_D16E_57B0_C4E7L;
    private static final long VERSION_SEED = 0x0A11_7E57_CAFE_F00DL;

    private DigestBuckets() {
    }

    static int bucketOf(byte[] key) {
        return (int) (PlacementHash.hash(key, BUCKET_SEED) >>> (Long.SIZE - BUCKET_BITS));
    }

    static long versionHash(byte[] key, Record record) {
        long version = record.timestamp() * 2 + (record.tombstone() ? 1 : 0);
        return PlacementHash.avalanche(PlacementHash.hash(key, VERSION_SEED) ^ PlacementHash.avalanche(version));
    }

    /** Scans every record the engine holds, tombstones included: O(records), blocking. */
    static long[] digest(StorageEngine engine) throws StoreException {
        try {
            return digest(engine, null);
        } catch (InterruptedException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** As {@link #digest(StorageEngine)}, of the keys {@code keys} accepts only: blocking, full speed. */
    static long[] digestOf(StorageEngine engine, java.util.function.Predicate<byte[]> keys) throws StoreException {
        long[] buckets = new long[BUCKETS];
        try (RangeCursor cursor = engine.range(new byte[0], null)) {
            while (cursor.next()) {
                if (keys.test(cursor.key())) {
                    buckets[bucketOf(cursor.key())] ^= versionHash(cursor.key(), cursor.record());
                }
            }
        }
        return buckets;
    }

    /** As {@link #digest(StorageEngine)}, at the pace {@code pacer} allows (null: full speed). */
    static long[] digest(StorageEngine engine, ScanPacer pacer) throws StoreException, InterruptedException {
        long[] buckets = new long[BUCKETS];
        int sincePace = 0;
        try (RangeCursor cursor = engine.range(new byte[0], null)) {
            while (cursor.next()) {
                buckets[bucketOf(cursor.key())] ^= versionHash(cursor.key(), cursor.record());
                if (pacer != null && ++sincePace == ScanPacer.BATCH) {
                    pacer.scanned(sincePace);
                    sincePace = 0;
                }
            }
        }
        return buckets;
    }

    static byte[] encode(long[] digest) {
        ByteBuffer out = ByteBuffer.allocate(digest.length * Long.BYTES);
        for (long bucket : digest) {
            out.putLong(bucket);
        }
        return out.array();
    }

    /** @throws IllegalArgumentException unless {@code bytes} holds exactly {@link #BUCKETS} longs */
    static long[] decode(byte[] bytes) {
        if (bytes.length != BUCKETS * Long.BYTES) {
            throw new IllegalArgumentException("a digest is " + BUCKETS * Long.BYTES + " bytes, got " + bytes.length);
        }
        long[] digest = new long[BUCKETS];
        ByteBuffer in = ByteBuffer.wrap(bytes);
        for (int i = 0; i < BUCKETS; i++) {
            digest[i] = in.getLong();
        }
        return digest;
    }

    static BitSet differing(long[] mine, long[] theirs) {
        BitSet differing = new BitSet(BUCKETS);
        for (int i = 0; i < BUCKETS; i++) {
            if (mine[i] != theirs[i]) {
                differing.set(i);
            }
        }
        return differing;
    }

    /** A bucket set on the wire: base64url of {@link BitSet#toByteArray()} (little-endian bits). */
    static String encodeBuckets(BitSet buckets) {
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(buckets.toByteArray());
    }

    /** @throws IllegalArgumentException for text that is not base64url or names a bucket beyond the last */
    static BitSet decodeBuckets(String text) {
        BitSet buckets = BitSet.valueOf(java.util.Base64.getUrlDecoder().decode(text));
        if (buckets.length() > BUCKETS) {
            throw new IllegalArgumentException("bucket " + (buckets.length() - 1) + " beyond the last, " + (BUCKETS - 1));
        }
        return buckets;
    }
}
