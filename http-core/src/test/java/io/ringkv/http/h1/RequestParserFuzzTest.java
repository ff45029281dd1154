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
 * Seeded robustness: byte-wise mutations of valid requests, fed in random pieces, must yield
 * events or a ParseError, never an exception or a spinning parser (the transcript driver bounds
 * the events per input byte). The seed is fixed; a failure names the iteration and input.
 */
class RequestParserFuzzTest {
    private static final long SEED = 0x5EED_2026L;
    private static final int ITERATIONS = 20_000;

    private static final List<byte[]> VALID = List.of(
            bytes("GET /v0/entity?id=1 HTTP/1.1\r\nHost: a\r\n\r\n"),
            bytes("PUT /v0/entity?id=k HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello"),
            bytes("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: v\r\n\r\n"),
            bytes("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.1\r\nHost: b\r\n\r\n"));

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void mutatedRequestsNeverThrowOrSpin() {
        Random random = new Random(SEED);
        H1Limits limits = new H1Limits(64, 256, 8, 64);
        int errors = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] wire = Mutations.mutate(VALID.get(random.nextInt(VALID.size())), random);
            try {
                List<String> events = RequestTranscript.parse(new RequestParser(limits), Mutations.randomPieces(wire, random));
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
