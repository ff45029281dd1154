package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ringkv.http.h2.Hex;
import io.ringkv.http.h2.Mutator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzz target: the HPACK decoder either decodes a block or throws {@link HpackException}; it
 * never throws anything unchecked and never returns more than the header list limit allows.
 * Seed corpus: {@code resources/io/ringkv/http/hpack/HpackDecoderFuzzTestInputs/}.
 */
class HpackDecoderFuzzTest {
    private static final int MUTATION_RUNS = 20_000;
    private static final long LIST_LIMIT = 1024;

    @FuzzTest(maxDuration = "10m")
    void decoderFailsOnlyWithHpackExceptions(byte[] input) {
        decodeTwoBlocks(input);
    }

    @Test
    void seededMutationsOfAppendixBlocksFailOnlyWithHpackExceptions() throws IOException {
        Random random = new Random(7541);
        var blocks = AppendixCTest.sequences().stream().flatMap(s -> s.blocks().stream())
                .map(b -> Hex.bytes(b.wireHex())).toList();
        int decoded = 0;
        for (int run = 0; run < MUTATION_RUNS; run++) {
            decoded += decodeTwoBlocks(Mutator.mutate(blocks.get(random.nextInt(blocks.size())), random));
        }
        assertThat(decoded, greaterThan(0));
    }

    /** Decodes the input as two consecutive blocks on one context; returns fields decoded. */
    static int decodeTwoBlocks(byte[] input) {
        HpackDecoder decoder = new HpackDecoder(256, LIST_LIMIT);
        int half = input.length / 2;
        int fields = 0;
        for (ByteBuffer block : new ByteBuffer[] {ByteBuffer.wrap(input, 0, half), ByteBuffer.wrap(input, half, input.length - half)}) {
            try {
                var list = decoder.decode(block);
                long size = list.stream().mapToLong(HeaderField::size).sum();
                if (size > LIST_LIMIT) {
                    throw new AssertionError("decoded list exceeds the limit: " + size);
                }
                fields += list.size();
            } catch (HeaderListTooLargeException expected) {
                // the context is still in step; go on with the next block
            } catch (HpackException expected) {
                return fields;
            }
        }
        return fields;
    }
}
