package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class RecordCodecTest {

    static Stream<Record> records() {
        byte[] allBytes = new byte[256];
        for (int i = 0; i < allBytes.length; i++) {
            allBytes[i] = (byte) i;
        }
        return Stream.of(
                Record.value(0, new byte[0]),
                Record.value(1, "v".getBytes(StandardCharsets.UTF_8)),
                Record.value(Long.MAX_VALUE, allBytes),
                Record.value(HybridLogicalClock.timestampOf(1_700_000_000_000L, HybridLogicalClock.COUNTER_MAX, HybridLogicalClock.NODE_MAX), new byte[1 << 20]),
                Record.tombstone(0),
                Record.tombstone(HybridLogicalClock.timestampOf(1_700_000_000_000L, 3)),
                Record.expiring(7, new byte[0], 1),
                Record.expiring(HybridLogicalClock.timestampOf(1_700_000_000_000L, 5, 2), allBytes, 1_700_000_002_000L),
                Record.expiring(Long.MAX_VALUE, "v".getBytes(StandardCharsets.UTF_8), Long.MAX_VALUE));
    }

    @ParameterizedTest
    @MethodSource("records")
    void recordRoundTrips(Record record) throws CorruptRecordException {
        assertThat(RecordCodec.decode(RecordCodec.encode(record)), is(record));
    }

    @Test
    void encodingIsTheDocumentedLayout() {
        byte[] encoded = RecordCodec.encode(Record.value(0x0102030405060708L, new byte[] {(byte) 0xAB}));
        assertThat(HexFormat.of().formatHex(encoded), is("01" + "0102030405060708" + "00" + "ab"));
        byte[] tombstone = RecordCodec.encode(Record.tombstone(1));
        assertThat(HexFormat.of().formatHex(tombstone), is("01" + "0000000000000001" + "01"));
    }

    /**
     * Records without an expiry are written exactly as before expiry existed (format 1), so a store
     * that never used a time to live holds the same bytes, and an older version still reads them.
     */
    @Test
    void aRecordWithoutExpiryKeepsFormatOne() {
        byte[] encoded = RecordCodec.encode(Record.value(5, new byte[] {1}));
        assertThat(encoded[0], is((byte) 1));
        assertThat(encoded.length, is(RecordCodec.HEADER_BYTES + 1));
    }

    @Test
    void anExpiringRecordIsFormatTwoWithTheExpiryAfterTheFlags() {
        byte[] encoded = RecordCodec.encode(Record.expiring(0x0102030405060708L, new byte[] {(byte) 0xAB}, 0x1112131415161718L));
        assertThat(HexFormat.of().formatHex(encoded), is("02" + "0102030405060708" + "00" + "1112131415161718" + "ab"));
    }

    /** Bytes as version 1 wrote them, before expiry existed: a value and a tombstone, neither expiring. */
    @Test
    void bytesWrittenBeforeExpiryExistedStillDecode() throws CorruptRecordException {
        Record value = RecordCodec.decode(HexFormat.of().parseHex("01" + "0000018bcfe56800" + "00" + "6869"));
        assertThat(value, is(Record.value(0x0000018bcfe56800L, "hi".getBytes(StandardCharsets.UTF_8))));
        assertThat(value.expires(), is(false));
        Record tombstone = RecordCodec.decode(HexFormat.of().parseHex("01" + "0000018bcfe56801" + "01"));
        assertThat(tombstone, is(Record.tombstone(0x0000018bcfe56801L)));
        assertThat(tombstone.expires(), is(false));
    }

    @Test
    void aFormatTwoTombstoneIsRejected() {
        byte[] bytes = HexFormat.of().parseHex("02" + "0000000000000001" + "01" + "0000000000000005");
        CorruptRecordException failure = assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(bytes));
        assertThat(failure.getMessage(), containsString("tombstone"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0000000000000000", "8000000000000000"})
    void aFormatTwoExpiryThatIsNotPositiveIsRejected(String expiry) {
        byte[] bytes = HexFormat.of().parseHex("02" + "0000000000000001" + "00" + expiry + "ab");
        CorruptRecordException failure = assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(bytes));
        assertThat(failure.getMessage(), containsString("expiry"));
    }

    @Test
    void everyTruncationInsideAFormatTwoHeaderIsRejected() {
        byte[] encoded = RecordCodec.encode(Record.expiring(5, new byte[] {1, 2, 3}, 9));
        for (int length = 0; length < RecordCodec.EXPIRING_HEADER_BYTES; length++) {
            byte[] truncated = Arrays.copyOf(encoded, length);
            assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(truncated));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "01", "010000000000000000"})
    void rejectsBytesShorterThanTheHeader(String hex) {
        CorruptRecordException failure = assertThrows(CorruptRecordException.class,
                () -> RecordCodec.decode(HexFormat.of().parseHex(hex)));
        assertThat(failure.getMessage(), containsString("too short"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"00", "03", "ff"})
    void rejectsUnknownFormat(String format) {
        byte[] bytes = HexFormat.of().parseHex(format + "0000000000000001" + "00");
        CorruptRecordException failure = assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(bytes));
        assertThat(failure.getMessage(), containsString("unknown record format"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"02", "80", "ff"})
    void rejectsReservedFlags(String flags) {
        byte[] bytes = HexFormat.of().parseHex("01" + "0000000000000001" + flags);
        CorruptRecordException failure = assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(bytes));
        assertThat(failure.getMessage(), containsString("unknown record flags"));
    }

    @Test
    void rejectsTombstoneCarryingValueBytes() {
        byte[] bytes = HexFormat.of().parseHex("01" + "0000000000000001" + "01" + "ab");
        assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(bytes));
    }

    @Test
    void decodedValueDoesNotAliasTheInput() throws CorruptRecordException {
        byte[] encoded = RecordCodec.encode(Record.value(1, new byte[] {1, 2}));
        Record decoded = RecordCodec.decode(encoded);
        encoded[RecordCodec.HEADER_BYTES] = 9;
        assertThat(decoded.value()[0], is((byte) 1));
    }

    @Test
    void everyTruncationInsideTheHeaderIsRejected() {
        byte[] encoded = RecordCodec.encode(Record.value(5, new byte[] {1, 2, 3}));
        for (int length = 0; length < RecordCodec.HEADER_BYTES; length++) {
            byte[] truncated = Arrays.copyOf(encoded, length);
            assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(truncated));
        }
    }
}
