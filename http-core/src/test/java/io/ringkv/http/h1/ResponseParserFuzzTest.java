package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded robustness for the client side: mutated responses, random pieces, then the server
 * closes. Only events or a {@link MalformedResponseException} may come out, and the parser
 * must not spin.
 */
class ResponseParserFuzzTest {
    private static final long SEED = 0x5EED_2027L;
    private static final int ITERATIONS = 20_000;
    private static final List<String> METHODS = List.of("GET", "HEAD", "GET");

    private static final List<byte[]> VALID = List.of(
            bytes("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"),
            bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"),
            bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: v\r\n\r\n"),
            bytes("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 204 No Content\r\n\r\n"),
            bytes("HTTP/1.1 200 OK\r\n\r\nuntil close"));

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void mutatedResponsesNeverThrowAnythingElseOrSpin() {
        Random random = new Random(SEED);
        H1Limits limits = new H1Limits(64, 256, 8, 64);
        int errors = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] wire = Mutations.mutate(VALID.get(random.nextInt(VALID.size())), random);
            try {
                List<String> events = ResponseTranscript.parse(new ResponseParser(limits), METHODS,
                        Mutations.randomPieces(wire, random), true);
                errors += !events.isEmpty() && events.get(events.size() - 1).startsWith("error") ? 1 : 0;
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("iteration " + i + " (seed " + SEED + ") input: " + Mutations.printable(wire), e);
            }
        }
        assertThat("the mutations reach the rejection paths", errors, greaterThan(ITERATIONS / 10));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(ISO_8859_1);
    }
}
