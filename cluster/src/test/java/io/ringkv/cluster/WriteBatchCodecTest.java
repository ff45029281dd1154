package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.store.Record;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bodies of {@link InternalProtocol#WRITES_PATH} and the answers of {@link InternalProtocol#READS_PATH}; the handler's tests attack the requests over more shapes. */
class WriteBatchCodecTest {

    @Test
    void aBatchRoundTripsInItsOwnOrderWithRepeatedKeysTombstonesAndBinaryBytes() {
        List<byte[]> keys = List.of(utf8("z"), new byte[] {0, (byte) 0xFF}, utf8("z"), utf8("e"));
        List<Record> records = List.of(Record.value(3, utf8("v")), Record.tombstone(Long.MAX_VALUE), Record.value(0, new byte[0]),
                Record.expiring(4, utf8("expiring"), 1_700_000_002_000L));
        WriteBatchCodec.Batch batch = WriteBatchCodec.decodeRequest(WriteBatchCodec.encodeRequest(keys, records));
        assertThat(batch.keys().size(), is(4));
        for (int i = 0; i < 4; i++) {
            assertThat(batch.keys().get(i), equalTo(keys.get(i)));
        }
        assertThat(batch.records(), contains(records.toArray()));
    }

    @Test
    void answersRoundTripAndAnythingElseIsRefused() {
        long[] answers = {WriteBatchCodec.STORED, WriteBatchCodec.REFUSED_AHEAD, 0, Long.MAX_VALUE};
        assertThat(WriteBatchCodec.decodeAnswers(WriteBatchCodec.encodeAnswers(answers), 4), equalTo(answers));

        IllegalArgumentException tooFew = assertThrows(IllegalArgumentException.class,
                () -> WriteBatchCodec.decodeAnswers(WriteBatchCodec.encodeAnswers(answers), 5));
        assertThat(tooFew.getMessage(), containsString("32 bytes of answers for 5 writes"));
        assertThrows(IllegalArgumentException.class, () -> WriteBatchCodec.decodeAnswers(new byte[9], 1));
        byte[] unknown = ByteBuffer.allocate(8).putLong(-3).array();
        assertThrows(IllegalArgumentException.class, () -> WriteBatchCodec.decodeAnswers(unknown, 1));
    }

    @Test
    void anUnknownFlagAnExpiringTombstoneOrANegativeTimestampIsRefused() {
        byte[] body = WriteBatchCodec.encodeRequest(List.of(utf8("k")), List.of(Record.value(7, utf8("v"))));
        int timestampAt = Integer.BYTES + 1;
        byte[] negative = body.clone();
        ByteBuffer.wrap(negative).putLong(timestampAt, -1);
        byte[] flagged = body.clone();
        flagged[timestampAt + Long.BYTES] = 4;
        byte[] expiringTombstone = WriteBatchCodec.encodeRequest(List.of(utf8("k")), List.of(Record.expiring(7, new byte[0], 9)));
        expiringTombstone[timestampAt + Long.BYTES] |= RecordFrames.FLAG_TOMBSTONE;
        assertThrows(IllegalArgumentException.class, () -> WriteBatchCodec.decodeRequest(negative));
        assertThrows(IllegalArgumentException.class, () -> WriteBatchCodec.decodeRequest(flagged));
        assertThrows(IllegalArgumentException.class, () -> WriteBatchCodec.decodeRequest(expiringTombstone));
    }

    @Test
    void readAnswersRoundTripAndMalformedOnesAreRefused() {
        List<ReadBatchCodec.Answer> answers = List.of(ReadBatchCodec.Answer.NOT_FOUND, ReadBatchCodec.Answer.ASK_ALONE,
                new ReadBatchCodec.Answer(Record.value(3, utf8("v")), false), new ReadBatchCodec.Answer(Record.tombstone(4), false),
                new ReadBatchCodec.Answer(Record.expiring(5, utf8("e"), 1_700_000_002_000L), false));
        byte[] body = ReadBatchCodec.encodeAnswers(answers);
        assertThat(ReadBatchCodec.decodeAnswers(body, 5), contains(answers.toArray()));

        assertThrows(IllegalArgumentException.class, () -> ReadBatchCodec.decodeAnswers(body, 6));        // cut short
        assertThrows(IllegalArgumentException.class, () -> ReadBatchCodec.decodeAnswers(body, 4));        // bytes left over
        assertThrows(IllegalArgumentException.class, () -> ReadBatchCodec.decodeAnswers(new byte[] {7}, 1)); // unknown kind
        byte[] huge = ReadBatchCodec.encodeAnswers(List.of(new ReadBatchCodec.Answer(Record.value(3, utf8("v")), false)));
        ByteBuffer.wrap(huge).putInt(1 + Long.BYTES + 1, Integer.MAX_VALUE);
        assertThrows(IllegalArgumentException.class, () -> ReadBatchCodec.decodeAnswers(huge, 1));       // value beyond the body
        byte[] tombstoneWithValue = ReadBatchCodec.encodeAnswers(List.of(new ReadBatchCodec.Answer(Record.value(3, utf8("v")), false)));
        tombstoneWithValue[1 + Long.BYTES] = RecordFrames.FLAG_TOMBSTONE;
        assertThrows(IllegalArgumentException.class, () -> ReadBatchCodec.decodeAnswers(tombstoneWithValue, 1));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
