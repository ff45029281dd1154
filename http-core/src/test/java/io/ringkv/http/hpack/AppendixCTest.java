package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.ringkv.http.h2.Hex;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** RFC 7541 Appendix C.2-C.6: every block decodes and encodes byte for byte, table sizes match. */
class AppendixCTest {

    record Block(List<HeaderField> fields, String wireHex, int tableSize) {
    }

    record Sequence(String id, int capacity, HpackEncoder.HuffmanMode huffman, Set<String> unindexed,
                    List<Block> blocks) {
        @Override
        public String toString() {
            return id;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sequences")
    void appendixExampleDecodesByteForByte(Sequence sequence) throws HpackException {
        HpackDecoder decoder = new HpackDecoder(sequence.capacity(), Long.MAX_VALUE);
        for (Block block : sequence.blocks()) {
            assertThat(decoder.decode(Hex.buffer(block.wireHex())), equalTo(block.fields()));
            assertThat(decoder.tableSize(), equalTo(block.tableSize()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sequences")
    void appendixExampleEncodesByteForByte(Sequence sequence) {
        HpackEncoder encoder = new HpackEncoder(new HpackEncoder.Config(sequence.capacity(), sequence.huffman(),
                Set.of(), sequence.unindexed()));
        for (Block block : sequence.blocks()) {
            ByteBuffer wire = encoder.encode(block.fields());
            assertThat(Hex.of(wire), equalTo(block.wireHex()));
            assertThat(encoder.tableSize(), equalTo(block.tableSize()));
        }
    }

    static List<Sequence> sequences() throws IOException {
        List<Sequence> sequences = new ArrayList<>();
        List<HeaderField> fields = new ArrayList<>();
        StringBuilder wire = new StringBuilder();
        for (String line : lines("/hpack/rfc7541-appendix-c.txt")) {
            String[] word = line.split(" ", 2);
            switch (word[0]) {
                case "sequence" -> sequences.add(sequence(line.split(" ")));
                case "field", "sensitive" -> {
                    String[] nameValue = word[1].split(" ", 2);
                    fields.add(new HeaderField(nameValue[0], nameValue[1], word[0].equals("sensitive")));
                }
                case "wire" -> wire.append(word[1].replace(" ", ""));
                case "size" -> {
                    sequences.getLast().blocks().add(new Block(List.copyOf(fields), wire.toString(),
                            Integer.parseInt(word[1])));
                    fields.clear();
                    wire.setLength(0);
                }
                default -> throw new IllegalStateException("unknown line: " + line);
            }
        }
        return sequences;
    }

    private static Sequence sequence(String[] word) {
        Set<String> unindexed = word.length > 4 ? Set.of(word[4]) : Set.of();
        return new Sequence(word[1], Integer.parseInt(word[2]), HpackEncoder.HuffmanMode.valueOf(word[3]), unindexed,
                new ArrayList<>());
    }

    static List<String> lines(String resource) throws IOException {
        try (InputStream in = AppendixCTest.class.getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        }
    }
}
