package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.h2.Hex;
import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every malformed block fails with its specific reason, never with an unchecked exception. */
class MalformedBlockTest {

    static Stream<Arguments> corpus() throws IOException {
        List<String> lines = AppendixCTest.lines("/hpack/malformed-blocks.txt");
        return lines.stream().map(l -> l.split(" ", 2)).map(w -> Arguments.of(w[0], w[1]));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("corpus")
    void malformedBlockFailsWithItsReason(String reason, String hex) {
        HpackDecoder decoder = new HpackDecoder(4096, Long.MAX_VALUE);
        HpackException error = assertThrows(HpackException.class, () -> decoder.decode(Hex.buffer(hex)));
        assertThat(error.reason(), equalTo(reason));
        assertThat(error.getClass(), equalTo(HpackException.class));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("corpus")
    void everyTruncationOfMalformedBlockFailsCleanly(String reason, String hex) {
        byte[] bytes = Hex.bytes(hex);
        for (int cut = 1; cut < bytes.length; cut++) {
            HpackDecoder decoder = new HpackDecoder(4096, Long.MAX_VALUE);
            java.nio.ByteBuffer prefix = java.nio.ByteBuffer.wrap(bytes, 0, cut);
            try {
                decoder.decode(prefix);
            } catch (HpackException expected) {
                assertThat(expected, instanceOf(HpackException.class));
            }
        }
    }
}
