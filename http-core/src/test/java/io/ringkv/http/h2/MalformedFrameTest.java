package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every entry of the malformed frame corpus ends in its specific error, whole or byte by byte. */
class MalformedFrameTest {

    static Stream<Arguments> corpus() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        for (String line : lines("/h2/malformed-frames.txt")) {
            String[] f = line.split("\\s+", 5);
            for (Chunking chunking : new Chunking[] {Chunking.WHOLE, Chunking.ONE_BYTE}) {
                cases.add(Arguments.of(f[3], f[0], f[1], ErrorCode.valueOf(f[2]), Hex.bytes(f[4]), chunking));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} ({5})")
    @MethodSource("corpus")
    void malformedFrameEndsInItsSpecificError(String reason, String role, String scope, ErrorCode code,
                                              byte[] wire, Chunking chunking) {
        FrameParser parser = role.equals("server") ? FrameParser.forServer() : FrameParser.forClient();
        Http2Error error = assertThrows(Http2Error.class, () -> {
            for (List<ByteBuffer> plan : chunking.plans(ByteBuffer.wrap(wire))) {
                FrameRoundTripTest.parseAll(parser, plan);
            }
        });
        assertThat(error.reason(), equalTo(reason));
        assertThat(error.code(), equalTo(code));
        if (scope.equals("connection")) {
            assertThat(error, instanceOf(ConnectionError.class));
        } else {
            assertThat(error, instanceOf(StreamError.class));
            assertThat(((StreamError) error).streamId(), equalTo(Integer.parseInt(scope.substring("stream:".length()))));
        }
    }

    static List<String> lines(String resource) throws IOException {
        try (InputStream in = MalformedFrameTest.class.getResourceAsStream(resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        }
    }
}
