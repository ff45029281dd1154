package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.is;

import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ClusterRangeMergeTest {

    private static final HexFormat HEX = HexFormat.of();
    /** The time every merge here judges expiry by, unless a test moves it. */
    private static final long NOW = 1_700_000_000_000L;

    private static ClusterRangeMerge merge(List<? extends RecordStream> streams) {
        return new ClusterRangeMerge(List.copyOf(streams), () -> NOW);
    }

    /**
     * An expired record is the key's newest version, like a tombstone: the key is left out, and
     * no older value of it shows through from another stream.
     */
    @Test
    void anExpiredNewestVersionHidesTheKeyAndNoOlderValueShowsThrough() throws Exception {
        ListRecordStream a = stream(
                entry("a", Record.expiring(9, utf8("a@9 expired"), NOW)),
                entry("b", Record.expiring(9, utf8("b@9 live"), NOW + 1)),
                entry("c", Record.value(3, utf8("c@3"))));
        ListRecordStream b = stream(
                entry("a", Record.value(5, utf8("a@5"))),
                entry("c", Record.expiring(7, utf8("c@7 expired"), NOW - 1_000)));
        assertThat(drain(merge(List.of(a, b))), contains("b\nb@9 live"));
    }

    /** A long range judges each record when it reaches it, not once at its start. */
    @Test
    void eachRecordIsJudgedAtTheTimeTheMergeReachesIt() throws Exception {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(NOW);
        ListRecordStream a = stream(
                entry("a", Record.expiring(1, utf8("a"), NOW + 10)),
                entry("b", Record.expiring(1, utf8("b"), NOW + 10)));
        try (ClusterRangeMerge merge = new ClusterRangeMerge(List.of(a), now::get)) {
            assertThat(merge.advance(), is(true));
            assertThat(new String(merge.key(), StandardCharsets.UTF_8), is("a"));
            now.set(NOW + 10);
            assertThat(merge.advance(), is(false));
        }
    }

    @Test
    void mergesOverlappingKeysKeepingTheFreshestVersionAndDroppingTombstones() throws Exception {
        ListRecordStream a = stream(
                entry("a", Record.value(5, utf8("a@5"))),
                entry("c", Record.tombstone(7)),
                entry("d", Record.value(1, utf8("d@1"))));
        ListRecordStream b = stream(
                entry("a", Record.value(9, utf8("a@9"))),
                entry("b", Record.value(1, utf8("b@1"))),
                entry("c", Record.value(3, utf8("c@3"))),
                entry("e", Record.tombstone(2)));
        ListRecordStream c = stream(
                entry("d", Record.tombstone(4)),
                entry("f", Record.value(8, utf8("f@8"))));
        assertThat(drain(merge(List.of(a, b, c))), contains("a\na@9", "b\nb@1", "f\nf@8"));
    }

    @Test
    void ordersBinaryKeysAsUnsignedBytesAndKeepsNewlinesInKeysAndValues() throws Exception {
        byte[] high = {(byte) 0xFF, 0};
        byte[] low = {0, '\n'};
        byte[] middle = {0x7F};
        ListRecordStream a = stream(Map.entry(low, Record.value(1, new byte[] {'\n'})), Map.entry(high, Record.value(1, new byte[0])));
        ListRecordStream b = stream(Map.entry(middle, Record.value(1, new byte[] {(byte) 0x80})));
        List<byte[]> chunks = drainBytes(merge(List.of(a, b)));
        assertThat(chunks.stream().map(HEX::formatHex).toList(), contains("000a0a0a", "7f0a80", "ff000a"));
    }

    @Test
    void equalTimestampsBreakTiesTheWayEveryReplicaDoes() throws Exception {
        ListRecordStream a = stream(entry("k", Record.value(5, utf8("apple"))));
        ListRecordStream b = stream(entry("k", Record.value(5, utf8("banana"))));
        assertThat(drain(merge(List.of(a, b))), contains("k\nbanana"));
        ListRecordStream c = stream(entry("k", Record.value(5, utf8("zzz"))));
        ListRecordStream d = stream(entry("k", Record.tombstone(5)));
        assertThat(drain(merge(List.of(c, d))).isEmpty(), is(true));
    }

    @Test
    void emptyStreamsAndNoStreamsGiveAnEmptyBody() throws Exception {
        assertThat(drain(merge(List.of())).isEmpty(), is(true));
        assertThat(drain(merge(List.of(stream(), stream()))).isEmpty(), is(true));
    }

    @Test
    void closeClosesEveryStreamEvenBeforeTheEnd() throws Exception {
        ListRecordStream a = stream(entry("a", Record.value(1, utf8("1"))), entry("b", Record.value(1, utf8("2"))));
        ListRecordStream b = stream(entry("c", Record.value(1, utf8("3"))));
        ClusterRangeMerge merge = merge(List.of(a, b));
        merge.next();
        merge.close();
        assertThat(a.closed() && b.closed(), is(true));
    }

    @Test
    void theCursorGivesEachLiveRecordOnceAndItsArraysStayValidUntilItMovesOn() throws Exception {
        // Both streams overwrite one key array and one value array in place on every step, as a
        // reader of the wire format may: the current record must not change under the caller.
        ReusingRecordStream a = new ReusingRecordStream(List.of(
                entry("a1", Record.value(1, utf8("x1"))), entry("b1", Record.tombstone(2)), entry("c1", Record.value(1, utf8("x3")))));
        ReusingRecordStream b = new ReusingRecordStream(List.of(
                entry("a1", Record.value(2, utf8("y1"))), entry("b1", Record.value(1, utf8("y2"))), entry("d1", Record.value(1, utf8("y4")))));
        List<String> seen = new ArrayList<>();
        try (ClusterRangeMerge merge = merge(List.of(a, b))) {
            while (merge.advance()) {
                seen.add(new String(merge.key(), StandardCharsets.UTF_8) + "=" + new String(merge.value(), StandardCharsets.UTF_8));
            }
            assertThat(merge.advance(), is(false));
        }
        assertThat(seen, contains("a1=y1", "c1=x3", "d1=y4"));
    }

    /** A stream that copies each entry into the same two arrays (keys and values of equal lengths). */
    private static final class ReusingRecordStream implements RecordStream {
        private final List<Map.Entry<byte[], Record>> entries;
        private final byte[] key;
        private final byte[] value;
        private int index = -1;

        ReusingRecordStream(List<Map.Entry<byte[], Record>> entries) {
            this.entries = entries;
            this.key = new byte[entries.get(0).getKey().length];
            this.value = new byte[2];
        }

        @Override
        public boolean next() {
            index++;
            if (index >= entries.size()) {
                return false;
            }
            System.arraycopy(entries.get(index).getKey(), 0, key, 0, key.length);
            Record record = entries.get(index).getValue();
            System.arraycopy(record.value(), 0, value, 0, record.value().length);
            return true;
        }

        @Override
        public byte[] key() {
            return key;
        }

        @Override
        public Record record() {
            Record record = entries.get(index).getValue();
            return record.tombstone() ? record : Record.value(record.timestamp(), value);
        }

        @Override
        public void close() {
        }
    }

    /** Three engines hold random overlapping versions; the merge equals a brute-force reconciliation. */
    @Test
    void matchesBruteForceReconciliationOfSeededRandomReplicas() throws Exception {
        Random random = new Random(99);
        List<StorageEngine> engines = List.of(new InMemoryStorageEngine(), new InMemoryStorageEngine(), new InMemoryStorageEngine());
        TreeMap<byte[], Record> truth = new TreeMap<>(Arrays::compareUnsigned);
        for (int i = 0; i < 3_000; i++) {
            byte[] key = new byte[1 + random.nextInt(3)];
            random.nextBytes(key);
            key = withoutNewlines(key); // so the test can split key from value at the first '\n'
            Record record = switch (random.nextInt(5)) {
                case 0 -> Record.tombstone(random.nextInt(50));
                case 1 -> Record.expiring(random.nextInt(50), utf8("v" + i), NOW - 50 + random.nextInt(100));
                default -> Record.value(random.nextInt(50), utf8("v" + i));
            };
            engines.get(random.nextInt(3)).apply(key, record);
            truth.merge(key, record, (x, y) -> y.isNewerThan(x) ? y : x);
        }
        List<String> expected = new ArrayList<>();
        truth.forEach((key, record) -> {
            if (record.liveAt(NOW)) {
                expected.add(HEX.formatHex(key) + "=" + new String(record.value(), StandardCharsets.UTF_8));
            }
        });
        // One local cursor and two streams that went through the wire format, as in a cluster.
        List<RecordStream> streams = List.of(
                new LocalRecordStream(engines.get(0).range(new byte[0], null)),
                overTheWire(engines.get(1)),
                overTheWire(engines.get(2)));
        List<String> merged = new ArrayList<>();
        for (byte[] chunk : drainBytes(merge(streams))) {
            int newline = 0;
            while (chunk[newline] != '\n') {
                newline++;
            }
            merged.add(HEX.formatHex(chunk, 0, newline) + "=" + new String(chunk, newline + 1, chunk.length - newline - 1, StandardCharsets.UTF_8));
        }
        assertThat(merged, is(expected));
    }

    private static RecordStream overTheWire(StorageEngine engine) throws Exception {
        List<Map.Entry<byte[], Record>> entries = new ArrayList<>();
        try (LocalRecordStream local = new LocalRecordStream(engine.range(new byte[0], null))) {
            while (local.next()) {
                entries.add(Map.entry(local.key(), local.record()));
            }
        }
        return new RecordFrameReader(new ByteArrayInputStream(RecordFramesTest.encode(entries)), "test");
    }

    private static byte[] withoutNewlines(byte[] key) {
        for (int i = 0; i < key.length; i++) {
            key[i] = key[i] == '\n' ? (byte) 0x0B : key[i];
        }
        return key;
    }

    @SafeVarargs
    private static ListRecordStream stream(Map.Entry<byte[], Record>... entries) {
        return new ListRecordStream(List.of(entries));
    }

    private static Map.Entry<byte[], Record> entry(String key, Record record) {
        return Map.entry(utf8(key), record);
    }

    private static List<String> drain(ClusterRangeMerge merge) throws IOException {
        return drainBytes(merge).stream().map(bytes -> new String(bytes, StandardCharsets.UTF_8)).toList();
    }

    private static List<byte[]> drainBytes(ClusterRangeMerge merge) throws IOException {
        List<byte[]> chunks = new ArrayList<>();
        try (merge) {
            for (ByteBuffer chunk = merge.next(); chunk != null; chunk = merge.next()) {
                byte[] bytes = new byte[chunk.remaining()];
                chunk.get(bytes);
                chunks.add(bytes);
            }
        }
        return chunks;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
