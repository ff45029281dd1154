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

    /**
     * A name whose value changes on every request (a signature) stops entering the table after
     * the probe, so the entries that do repeat stay there; every block still decodes exactly.
     */
    @Test
    void aNameWhoseValuesNeverRepeatStopsEvictingTheOnesThatDo() throws HpackException {
        HpackEncoder encoder = new HpackEncoder();
        HpackDecoder decoder = new HpackDecoder(4096, 100_000);
        HeaderField stable = new HeaderField("x-node", "http://127.0.0.1:8080");
        int stableLiterals = 0;
        for (int i = 0; i < 500; i++) {
            List<HeaderField> fields = List.of(stable, new HeaderField("x-signature", Long.toHexString(0x9e3779b97f4a7c15L * (i + 1))));
            ByteBuffer block = encoder.encode(fields);
            if ((block.get(block.position()) & 0x80) == 0) {
                stableLiterals++; // x-node was not an index: it had been evicted
            }
            assertThat(decoder.decode(block), equalTo(fields));
        }
        // 4096 bytes hold ~60 signatures: while they are inserted, x-node is evicted every ~60 blocks.
        assertThat("x-node stayed in the table once signatures went unindexed", stableLiterals <= 2, org.hamcrest.Matchers.is(true));
        ByteBuffer last = encoder.encode(List.of(stable, new HeaderField("x-signature", "feedface")));
        assertThat(last.get(last.position()) & 0x80, equalTo(0x80));
        assertThat(last.get(last.position() + 1) & 0xf0, equalTo(0x00)); // 0000xxxx: without indexing
    }

    @Test
    void valuesThatRepeatStayIndexed() throws HpackException {
        HpackEncoder encoder = new HpackEncoder();
        HpackDecoder decoder = new HpackDecoder(4096, 100_000);
        for (int i = 0; i < 200; i++) {
            List<HeaderField> fields = List.of(new HeaderField("x-route", "r" + (i % 4)));
            ByteBuffer block = encoder.encode(fields);
            if (i >= 4) {
                assertThat("a repeating value is an index", block.get(block.position()) & 0x80, equalTo(0x80));
            }
            assertThat(decoder.decode(block), equalTo(fields));
        }
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
