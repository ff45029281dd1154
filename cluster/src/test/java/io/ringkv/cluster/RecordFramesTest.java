package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.Record;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class RecordFramesTest {

    enum Delivery { WHOLE, ONE_BYTE_AT_A_TIME }

    private static List<Map.Entry<byte[], Record>> sampleEntries(long seed, int count, boolean withLargeValue) {
        Random random = new Random(seed);
        TreeMap<byte[], Record> sorted = new TreeMap<>(Arrays::compareUnsigned);
        sorted.put(new byte[] {0}, Record.value(1, new byte[0]));
        sorted.put(new byte[] {(byte) 0xFF, '\n', 0}, Record.tombstone(2));
        if (withLargeValue) {
            sorted.put(new byte[] {'k'}, Record.value(3, new byte[RecordFrameSource.CHUNK_BYTES_TARGET * 2]));
        }
        while (sorted.size() < count) {
            byte[] key = new byte[1 + random.nextInt(20)];
            random.nextBytes(key);
            byte[] value = new byte[random.nextInt(300)];
            random.nextBytes(value);
            long timestamp = random.nextLong(1L << 62);
            sorted.put(key, switch (random.nextInt(5)) {
                case 0 -> Record.tombstone(timestamp);
                case 1 -> Record.expiring(timestamp, value, 1 + random.nextLong(1L << 47));
                default -> Record.value(timestamp, value);
            });
        }
        return new ArrayList<>(sorted.entrySet());
    }

    @ParameterizedTest
    @EnumSource(Delivery.class)
    void roundTripsBinaryKeysValuesAndTombstonesAcrossChunks(Delivery delivery) throws IOException {
        List<Map.Entry<byte[], Record>> entries = sampleEntries(7, 2_000, true);
        byte[] wire = encode(entries);
        assertThat(wire.length, greaterThan(RecordFrameSource.CHUNK_BYTES_TARGET * 4));
        InputStream in = new ByteArrayInputStream(wire);
        List<Map.Entry<byte[], Record>> decoded = decodeAll(delivery == Delivery.WHOLE ? in : new OneByteAtATime(in));
        assertThat(decoded.size(), is(entries.size()));
        for (int i = 0; i < entries.size(); i++) {
            assertThat(decoded.get(i).getKey(), equalTo(entries.get(i).getKey()));
            assertThat(decoded.get(i).getValue(), equalTo(entries.get(i).getValue()));
        }
    }

    /** A record without an expiry travels exactly as before expiry existed, so such frames are what older nodes send and read. */
    @Test
    void aFrameWithoutExpiryKeepsItsLayout() {
        ByteBuffer out = ByteBuffer.allocate(RecordFrames.frameBytes(new byte[] {'a'}, Record.value(1, new byte[] {'x'})));
        RecordFrames.write(out, new byte[] {'a'}, Record.value(1, new byte[] {'x'}));
        assertThat(java.util.HexFormat.of().formatHex(out.array()), is("00000001" + "61" + "0000000000000001" + "00" + "00000001" + "78"));
    }

    @Test
    void anExpiringFrameCarriesItsExpiryAfterTheFlags() throws IOException {
        Record expiring = Record.expiring(1, new byte[] {'x'}, 0x0102030405060708L);
        ByteBuffer out = ByteBuffer.allocate(RecordFrames.frameBytes(new byte[] {'a'}, expiring) + Integer.BYTES);
        RecordFrames.write(out, new byte[] {'a'}, expiring);
        RecordFrames.writeEnd(out);
        assertThat(java.util.HexFormat.of().formatHex(out.array()),
                is("00000001" + "61" + "0000000000000001" + "02" + "0102030405060708" + "00000001" + "78" + "ffffffff"));
        assertThat(decodeAll(new ByteArrayInputStream(out.array())).getFirst().getValue(), is(expiring));
    }

    @Test
    void anEmptyRangeIsJustTheEndMarker() throws IOException {
        byte[] wire = encode(List.of());
        assertThat(wire, equalTo(new byte[] {-1, -1, -1, -1}));
        assertThat(decodeAll(new ByteArrayInputStream(wire)).isEmpty(), is(true));
    }

    @Test
    void aStreamCutShortAnywhereIsAnErrorNotAShorterRange() throws IOException {
        byte[] wire = encode(sampleEntries(11, 20, false));
        for (int cut = 0; cut < wire.length; cut++) {
            InputStream truncated = new ByteArrayInputStream(Arrays.copyOf(wire, cut));
            IOException e = assertThrows(IOException.class, () -> decodeAll(truncated));
            assertThat(e.getMessage(), containsString("peer"));
        }
    }

    @Test
    void rejectsCorruptLengthsFlagsAndOrderWithoutAllocating() {
        assertCorrupt(ByteBuffer.allocate(4).putInt(RecordFrames.KEY_BYTES_MAX + 1).array(), "key length");
        assertCorrupt(ByteBuffer.allocate(4).putInt(-2).array(), "key length");
        assertCorrupt(ByteBuffer.allocate(18).putInt(1).put((byte) 'a').putLong(1).put((byte) 4).putInt(0).array(), "flags");
        assertCorrupt(ByteBuffer.allocate(26).putInt(1).put((byte) 'a').putLong(1).put((byte) 3).putLong(9).putInt(0).array(), "tombstone");
        assertCorrupt(ByteBuffer.allocate(26).putInt(1).put((byte) 'a').putLong(1).put((byte) 2).putLong(0).putInt(0).array(), "expiry");
        assertCorrupt(ByteBuffer.allocate(26).putInt(1).put((byte) 'a').putLong(1).put((byte) 2).putLong(-9).putInt(0).array(), "expiry");
        assertCorrupt(ByteBuffer.allocate(18).putInt(1).put((byte) 'a').putLong(-5).put((byte) 0).putInt(0).array(), "timestamp");
        assertCorrupt(ByteBuffer.allocate(18).putInt(1).put((byte) 'a').putLong(1).put((byte) 0).putInt(Integer.MAX_VALUE).array(), "value length");
        assertCorrupt(ByteBuffer.allocate(19).putInt(1).put((byte) 'a').putLong(1).put((byte) 1).putInt(1).put((byte) 'x').array(), "tombstone with a value");
        ByteBuffer descending = ByteBuffer.allocate(40);
        RecordFrames.write(descending, new byte[] {'b'}, Record.value(1, new byte[0]));
        RecordFrames.write(descending, new byte[] {'a'}, Record.value(1, new byte[0]));
        assertCorrupt(Arrays.copyOf(descending.array(), descending.position()), "ascending key order");
    }

    private static void assertCorrupt(byte[] wire, String reason) {
        IOException e = assertThrows(IOException.class, () -> decodeAll(new ByteArrayInputStream(wire)));
        assertThat(e.getMessage(), containsString(reason));
    }

    static byte[] encode(List<Map.Entry<byte[], Record>> entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (RecordFrameSource source = new RecordFrameSource(new ListRecordStream(entries))) {
            for (ByteBuffer chunk = source.next(); chunk != null; chunk = source.next()) {
                out.write(chunk.array(), chunk.arrayOffset() + chunk.position(), chunk.remaining());
            }
        }
        return out.toByteArray();
    }

    static List<Map.Entry<byte[], Record>> decodeAll(InputStream in) throws IOException {
        List<Map.Entry<byte[], Record>> decoded = new ArrayList<>();
        try (RecordFrameReader reader = new RecordFrameReader(in, "peer")) {
            while (reader.next()) {
                decoded.add(Map.entry(reader.key(), reader.record()));
            }
        }
        return decoded;
    }

    /** Hands out at most one byte per read, as a slow network might. */
    private static final class OneByteAtATime extends FilterInputStream {
        OneByteAtATime(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return super.read(b, off, Math.min(len, 1));
        }
    }
}
