package io.ringkv.cluster;

import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * The keys of the records a {@link Cleanup} run found not owned here and kept, so that a
 * follow-up looks at those keys alone instead of the whole store. At most {@link #MAX} keys and
 * {@link #BYTES_MAX} bytes of them are remembered; past that the set says it
 * {@linkplain #overflowed overflowed}, and a follow-up reads the whole store again. Ordered as the
 * run met them (key order), then, for a follow-up, the keys stored since from senders behind
 * ({@link Cleanup#storedFrom}).
 *
 * <p>Threading: filled by the cleanup thread during a run, then handed, unchanged, to the
 * follow-up it schedules (through the executor: a happens-before edge); the set of keys stored
 * from senders behind is filled and taken under the cleanup's lock.
 */
final class KeptKeys {
    /** Keys remembered at most. */
    static final int MAX = 4_096;
    /** Bytes of keys remembered at most: keys may have up to 64 KiB each, and 4,096 of those would be 256 MiB of heap. */
    static final long BYTES_MAX = 1L << 20;

    private final List<byte[]> keys = new ArrayList<>();
    private long count;
    private long bytes;

    /** A set that remembers no key and says it overflowed: its follow-up reads the whole store. */
    static KeptKeys wholeStore() {
        KeptKeys all = new KeptKeys();
        all.count = 1;
        return all;
    }

    void add(byte[] key) {
        count++;
        if (keys.size() < MAX && bytes + key.length <= BYTES_MAX) {
            keys.add(key);
            bytes += key.length;
        }
    }

    /** A set of this one's keys, then {@code other}'s (each within the bounds; either's overflow is the result's). */
    KeptKeys plus(KeptKeys other) {
        KeptKeys both = new KeptKeys();
        for (KeptKeys part : List.of(this, other)) {
            part.keys.forEach(both::add);
            both.count += part.count - part.keys.size(); // what either could not remember stays counted
        }
        return both;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Records kept, remembered or not. */
    long count() {
        return count;
    }

    boolean overflowed() {
        return count > keys.size();
    }

    /** The remembered keys' records as they stand now, in order; a key no longer stored is passed over. */
    RangeCursor cursor(StorageEngine engine) {
        Iterator<byte[]> next = keys.iterator();
        return new RangeCursor() {
            private byte[] key;
            private Record record;

            @Override
            public boolean next() throws StoreException {
                while (next.hasNext()) {
                    byte[] candidate = next.next();
                    Optional<Record> stored = engine.get(candidate);
                    if (stored.isPresent()) {
                        key = candidate;
                        record = stored.get();
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
                return record;
            }

            @Override
            public void close() {
            }
        };
    }
}
