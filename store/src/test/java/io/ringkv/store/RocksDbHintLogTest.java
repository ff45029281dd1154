package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * Hint records damaged on disk, written straight into the hints column family of a closed store
 * with RocksDB's own API: the store still opens, the good hints come back, and the bad ones are
 * counted and gone.
 */
@Timeout(60)
class RocksDbHintLogTest {
    private static final String TARGET = "http://a:1";

    @TempDir
    Path dir;

    @Test
    void undecodableHintsAreSkippedCountedAndDeletedWhenTheStoreOpens() throws Exception {
        Path db = dir.resolve("db");
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(db)) {
            engine.hints().add(TARGET, utf8("good-1"), Record.value(1, utf8("v1")), 10);   // sequence 1
            engine.hints().add(TARGET, utf8("good-2"), Record.value(2, utf8("v2")), 11);   // sequence 2
        }
        writeIntoHintsFamily(db, List.of(
                // After the good ones, a value whose record has an unknown format byte.
                new byte[][] {HintCodec.key(TARGET, 5), damagedValue()},
                // A value cut short inside its key length.
                new byte[][] {HintCodec.key(TARGET, 6), new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 0, 0}},
                // A key with bytes after its sequence.
                new byte[][] {concat(HintCodec.key(TARGET, 7), new byte[] {9}), validValue()}));

        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(db)) {
            HintLog hints = engine.hints();
            assertThat(hints.corruptSkipped(), is(3L));
            assertThat(hints.counts(), is(Map.of(TARGET, 2L)));
            assertThat(keysOf(hints.oldest(TARGET, 10)), contains("good-1", "good-2"));
            engine.hints().add(TARGET, utf8("good-3"), Record.value(3, utf8("v3")), 12);
            assertThat("new hints sort after the old ones", keysOf(hints.oldest(TARGET, 10)),
                    contains("good-1", "good-2", "good-3"));
        }
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(db)) {
            assertThat("deleted at the first open", engine.hints().corruptSkipped(), is(0L));
            assertThat(engine.hints().counts(), is(Map.of(TARGET, 3L)));
        }
    }

    @Test
    void aHintDamagedWhileTheStoreIsOpenIsSkippedWhenRead() throws Exception {
        Path db = dir.resolve("db");
        try (RocksDbStorageEngine engine = RocksDbStorageEngine.open(db)) {
            engine.hints().add(TARGET, utf8("good-1"), Record.value(1, utf8("v1")), 10);
            engine.hints().add(TARGET, utf8("doomed"), Record.value(2, new byte[50]), 11);
            engine.hints().add(TARGET, utf8("good-2"), Record.value(3, utf8("v3")), 12);
            // Through the store's own handle, as a bit flip would leave the record.
            ((RocksDbHintLog) engine.hints()).putForTests(HintCodec.key(TARGET, 2), damagedValueOfSize(50 + 6));

            assertThat(keysOf(engine.hints().oldest(TARGET, 10)), contains("good-1", "good-2"));
            assertThat(engine.hints().corruptSkipped(), is(1L));
            assertThat(engine.hints().counts(), is(Map.of(TARGET, 2L)));
            assertThat(engine.hints().bytes(TARGET), is(16L));
        }
    }

    /** A hint value as this version writes it, whose record's format byte is then made unknown. */
    private static byte[] damagedValue() {
        return damagedValueOfSize(2);
    }

    private static byte[] damagedValueOfSize(int sizeBytes) {
        byte[] key = utf8("ba");
        byte[] value = new byte[sizeBytes - key.length];
        byte[] stored = HintCodec.value(new Hint(TARGET, 0, 10, key, Record.value(4, value)));
        stored[Long.BYTES + Integer.BYTES + key.length] = 99; // the record's format byte
        return stored;
    }

    private static byte[] validValue() {
        return HintCodec.value(new Hint(TARGET, 0, 10, utf8("ok"), Record.value(4, utf8("x"))));
    }

    /** Puts each {key, value} pair into the hints family of the closed store at {@code db}. */
    private static void writeIntoHintsFamily(Path db, List<byte[][]> entries) throws Exception {
        RocksDbNativeLibrary.load();
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY),
                new ColumnFamilyDescriptor(RocksDbStorageEngine.HINTS_FAMILY.getBytes(StandardCharsets.UTF_8)),
                new ColumnFamilyDescriptor(RocksDbStorageEngine.META_FAMILY.getBytes(StandardCharsets.UTF_8)),
                new ColumnFamilyDescriptor(RocksDbStorageEngine.PAXOS_FAMILY.getBytes(StandardCharsets.UTF_8)));
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (DBOptions options = new DBOptions();
             RocksDB raw = RocksDB.open(options, db.toString(), descriptors, handles)) {
            try {
                for (byte[][] entry : entries) {
                    raw.put(handles.get(1), entry[0], entry[1]);
                }
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        }
    }

    private static List<String> keysOf(List<Hint> hints) {
        return hints.stream().map(h -> new String(h.key(), StandardCharsets.UTF_8)).toList();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
