package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.ringkv.http.h2.Hex;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What the encoder emits, octet for octet. The digests and blocks were made with the encoder
 * of git ccb530c (from {@link EncoderWorkload} and one request), so every choice
 * (indexing, Huffman or not, size updates, never-indexed literals, the reuse probe) must come
 * out the same however the encoder finds and writes it.
 */
class EncoderOutputTest {
    @Test
    void workloadDigestsAreUnchanged() {
        List<String> digests = EncoderWorkload.configs().stream().map(EncoderWorkload::digest).toList();
        assertThat(digests, equalTo(List.of(
                "78116fa30137f144bca640940d7e058f933b5889defaa45292ef7bebb7d53c6b",
                "0d4603b508d11f631f42921d7d82a4e9affc84af1892eb010f6a61e600bc1845",
                "d17aea8bd24846925540375ea5e225716e221b46635c913c15517cd59e85d29f",
                "8a5733eed9cee215a1011e61eec9a1e121b7ce25dcfb91c8a358e4c3892e2e86")));
    }

    /** One request, first and repeated, octet by octet: each kind of representation once. */
    @Test
    void aRequestEncodesAsBefore() {
        List<HeaderField> request = List.of(new HeaderField(":method", "GET"),
                new HeaderField(":path", "/v0/entity?id=k1"), new HeaderField("user-agent", "ringkv/1"),
                new HeaderField("authorization", "Bearer abc"), new HeaderField("x-request-id", "7f"));
        HpackEncoder encoder = new HpackEncoder();
        // 82 static index; 04 8c ..: :path without indexing, 12 Huffman octets; 7a 86 ..: user-agent
        // with incremental indexing; 1f 08 87 ..: authorization never indexed; 40 89 .. 02 37 66:
        // a new name, Huffman-coded, and a value Huffman would not shorten, raw.
        assertThat(Hex.of(encoder.encode(request)), equalTo("82" + "048c63b8182d49327d7f86920ea1"
                + "7a86b0d54dd7bb01" + "1f0887ba51d85b141c64" + "4089f2b585ed6950958d27023766"));
        // The indexed ones are now one-octet dynamic indexes: bf (user-agent), be (x-request-id).
        assertThat(Hex.of(encoder.encode(request)), equalTo("82" + "048c63b8182d49327d7f86920ea1"
                + "bf" + "1f0887ba51d85b141c64" + "be"));
    }

    /** Heap, offset heap, direct and the encoder's own buffer all carry the same octets. */
    @Test
    void everyOutputKindCarriesTheSameBlocks() {
        HpackEncoder toExact = new HpackEncoder();
        HpackEncoder toHeap = new HpackEncoder();
        HpackEncoder toSlice = new HpackEncoder();
        HpackEncoder toDirect = new HpackEncoder();
        HpackEncoder toReused = new HpackEncoder();
        Random random = new Random(99);
        for (int i = 0; i < 300; i++) {
            List<HeaderField> list = EncoderWorkload.list(random);
            int room = HpackEncoder.maxEncodedLength(list);
            String expected = Hex.of(toExact.encode(list));

            ByteBuffer heap = ByteBuffer.allocate(room + 3).position(3);
            toHeap.encode(list, heap);
            assertThat(Hex.of(heap.flip().position(3)), equalTo(expected));

            ByteBuffer slice = ByteBuffer.allocate(room + 20).position(7).slice().position(5);
            toSlice.encode(list, slice);
            assertThat(Hex.of(slice.flip().position(5)), equalTo(expected));

            ByteBuffer direct = ByteBuffer.allocateDirect(room);
            toDirect.encode(list, direct);
            assertThat(Hex.of(direct.flip()), equalTo(expected));

            assertThat(Hex.of(toReused.encodeReused(list)), equalTo(expected));
        }
    }

    /**
     * A Huffman attempt writes a few octets past a string it then sends raw; with the output's
     * room exactly {@link HpackEncoder#maxEncodedLength} up to the array's end, even tiny and
     * incompressible fields (octets above 0x7f have 20-30 bit codes) stay inside it.
     */
    @Test
    void tinyAndIncompressibleFieldsFitTheBoundAtTheArraysEnd() throws HpackException {
        Random random = new Random(5);
        for (HpackEncoder.Config config : EncoderWorkload.configs()) {
            HpackEncoder encoder = new HpackEncoder(config);
            HpackDecoder decoder = new HpackDecoder(config.tableCapacity(), Long.MAX_VALUE);
            for (int i = 0; i < 2_000; i++) {
                List<HeaderField> list = List.of(new HeaderField(tiny(random), tiny(random)));
                int room = HpackEncoder.maxEncodedLength(list);
                ByteBuffer out = ByteBuffer.allocate(room + 2).position(2);
                encoder.encode(list, out);
                assertThat(decoder.decode(out.flip().position(2)), equalTo(list));
            }
        }
    }

    private static String tiny(Random random) {
        char[] text = new char[random.nextInt(4)];
        for (int i = 0; i < text.length; i++) {
            text[i] = (char) (random.nextBoolean() ? 0x80 + random.nextInt(128) : 'a' + random.nextInt(26));
        }
        return new String(text);
    }

    @Test
    void tooSmallAnOutputIsRefusedBeforeTheTableChanges() {
        HpackEncoder encoder = new HpackEncoder();
        List<HeaderField> list = List.of(new HeaderField("x-a", "1"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> encoder.encode(list, ByteBuffer.allocate(HpackEncoder.maxEncodedLength(list) - 1)));
        assertThat(encoder.tableSize(), equalTo(0));
    }
}
