package io.ringkv.store;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class HintCodecTest {

    static Stream<Record> records() {
        byte[] value = "value".getBytes(StandardCharsets.UTF_8);
        return Stream.of(Record.value(3, value), Record.tombstone(4), Record.expiring(5, value, 1_700_000_002_000L));
    }

    @ParameterizedTest
    @MethodSource("records")
    void aHintRoundTripsWithItsRecord(Record record) throws CorruptRecordException {
        Hint hint = new Hint("http://a:1", 7, 100, "key".getBytes(StandardCharsets.UTF_8), record);
        Hint decoded = HintCodec.decode(HintCodec.key(hint.target(), hint.sequence()), HintCodec.value(hint));
        assertThat(decoded.record(), is(record));
        assertThat(decoded.sequence(), is(7L));
    }

    /** The size of a stored hint that no longer decodes is estimated from its bytes: exact for what this version writes. */
    @ParameterizedTest
    @MethodSource("records")
    void theSizeOfAStoredHintIsExactForEveryRecordFormat(Record record) {
        Hint hint = new Hint("http://a:1", 7, 100, "key".getBytes(StandardCharsets.UTF_8), record);
        assertThat(HintCodec.sizeOfStored(HintCodec.value(hint)), is(hint.sizeBytes()));
    }
}
