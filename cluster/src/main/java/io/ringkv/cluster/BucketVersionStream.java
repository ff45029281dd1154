package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.io.IOException;
import java.util.BitSet;

/**
 * This node's records in some digest buckets, values left out: what the versions endpoint sends
 * to a peer comparing with us. A value record goes out with an empty value and no expiry (the
 * timestamp names the write, and with it its expiry: see {@link DigestBuckets}); a tombstone as it is.
 * Key order is kept (the underlying stream is a range scan). Threading: as {@link RecordStream}.
 */
final class BucketVersionStream implements RecordStream {
    private static final byte[] NO_VALUE = new byte[0];

    private final RecordStream records;
    private final BitSet buckets;
    private final java.util.function.Predicate<byte[]> keys;
    private byte[] key;
    private Record version;

    BucketVersionStream(RecordStream records, BitSet buckets) {
        this(records, buckets, key -> true);
    }

    /** @param keys only keys it accepts are sent (those the requesting peer and this node both own) */
    BucketVersionStream(RecordStream records, BitSet buckets, java.util.function.Predicate<byte[]> keys) {
        this.records = records;
        this.buckets = buckets;
        this.keys = keys;
    }

    /**
     * What a peer is sent of {@code record} to compare versions: a tombstone as it is, a value
     * record with an empty value and no expiry (its timestamp names the write, and with it the rest).
     */
    static Record versionOf(Record record) {
        return record.tombstone() ? record : Record.value(record.timestamp(), NO_VALUE);
    }

    /**
     * Whether {@code mine} is a newer version than a peer's {@code theirs} (a {@link #versionOf
     * version}, its value left out): by timestamp, then a tombstone beats a value, as
     * {@link Record#compareTo} orders records. Timestamps carry the node that issued them, so one
     * timestamp is one write.
     */
    static boolean newerVersion(Record mine, Record theirs) {
        if (mine.timestamp() != theirs.timestamp()) {
            return mine.timestamp() > theirs.timestamp();
        }
        return mine.tombstone() && !theirs.tombstone();
    }

    @Override
    public boolean next() throws IOException {
        while (records.next()) {
            if (buckets.get(DigestBuckets.bucketOf(records.key())) && keys.test(records.key())) {
                key = records.key();
                version = versionOf(records.record());
                return true;
            }
        }
        return false;
    }

    @Override
    public byte[] key() {
        return key;
    }

    @Override
    public Record record() {
        return version;
    }

    @Override
    public void close() {
        records.close();
    }
}
