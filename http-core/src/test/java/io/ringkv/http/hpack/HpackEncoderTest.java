package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import io.ringkv.http.h2.Hex;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HpackEncoderTest {

    @Test
    void sensitiveHeadersAreNeverIndexedAndNeverEnterTheTable() throws HpackException {
        HpackEncoder encoder = new HpackEncoder();
        HpackDecoder decoder = new HpackDecoder(4096, 10_000);
        for (String name : List.of("authorization", "proxy-authorization", "cookie", "set-cookie")) {
            ByteBuffer block = encoder.encode(List.of(new HeaderField(name, "secret-token")));
            // 0001xxxx: literal never indexed (RFC 7541 §6.2.3)
            assertThat(name, block.get(0) & 0xf0, equalTo(0x10));
            assertThat(decoder.decode(block), equalTo(List.of(new HeaderField(name, "secret-token", true))));
        }
        assertThat(encoder.tableSize(), equalTo(0));
        ByteBuffer custom = encoder.encode(List.of(new HeaderField("x-api-key", "k", true)));
        assertThat(Hex.of(custom), startsWith("10"));
    }

    @Test
    void tableCapacityChangeIsSignalledWithSmallestThenFinalSize() throws HpackException {
        HpackEncoder encoder = new HpackEncoder();
        HpackDecoder decoder = new HpackDecoder(4096, 10_000);
        decoder.decode(encoder.encode(List.of(new HeaderField("x-a", "1"))));
        encoder.maxTableCapacity(0);
        encoder.maxTableCapacity(2048);
        ByteBuffer block = encoder.encode(List.of(new HeaderField("x-a", "1")));
        assertThat(Hex.of(block), startsWith("203fe10f"));
        assertThat(decoder.decode(block), equalTo(List.of(new HeaderField("x-a", "1"))));
    }

    @Test
    void smallTableEvictsInStepWithDecoderOverManyLists() throws HpackException {
        HpackEncoder encoder = new HpackEncoder(new HpackEncoder.Config(256, HpackEncoder.HuffmanMode.WHEN_SHORTER,
                HpackEncoder.Config.DEFAULT_SENSITIVE, HpackEncoder.Config.DEFAULT_UNINDEXED));
        HpackDecoder decoder = new HpackDecoder(256, 100_000);
        Random random = new Random(42);
        for (int i = 0; i < 1_000; i++) {
            List<HeaderField> list = JettyCrossCheckTest.randomList(random);
            List<HeaderField> decoded = decoder.decode(encoder.encode(list)).stream()
                    .map(f -> new HeaderField(f.name(), f.value())).toList();
            assertThat(decoded, equalTo(list));
            assertThat(decoder.tableSize(), equalTo(encoder.tableSize()));
        }
    }
}
