package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded robustness: byte-wise mutations of valid requests, fed in random pieces, must yield
 * events or a ParseError, never an exception or a spinning parser (the transcript driver bounds
 * the events per input byte). The seed is fixed; a failure names the iteration to replay.
 */
class RequestParserFuzzTest {
    private static final long SEED = 0x5EED_2026L;
    private static final int ITERATIONS = 20_000;
    private static final int MUTATIONS_MAX = 4;

    private static final List<byte[]> VALID = List.of(
            bytes("GET /v0/entity?id=1 HTTP/1.1\r\nHost: a\r\n\r\n"),
            bytes("PUT /v0/entity?id=k HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello"),
            bytes("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n0\r\nT: v\r\n\r\n"),
            bytes("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /2 HTTP/1.1\r\nHost: b\r\n\r\n"));

    private static final byte[] INTERESTING = bytes("\r\n \t:;,0aF-\u0000\u007f\u00ff");

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void mutatedRequestsNeverThrowOrSpin() {
        Random random = new Random(SEED);
        H1Limits limits = new H1Limits(64, 256, 8, 64);
        int errors = 0;
        for (int i = 0; i < ITERATIONS; i++) {
            byte[] wire = mutate(VALID.get(random.nextInt(VALID.size())), random);
            List<byte[]> pieces = randomPieces(wire, random);
            try {
                List<String> events = RequestTranscript.parse(new RequestParser(limits), pieces);
                errors += !events.isEmpty() && events.get(events.size() - 1).startsWith("error") ? 1 : 0;
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("iteration " + i + " (seed " + SEED + ") input: "
                        + new String(wire, ISO_8859_1).replace("\r", "\\r").replace("\n", "\\n"), e);
            }
        }
        assertThat("the mutations reach the rejection paths", errors, greaterThan(ITERATIONS / 10));
    }

    private static byte[] mutate(byte[] valid, Random random) {
        byte[] wire = valid.clone();
        int mutations = 1 + random.nextInt(MUTATIONS_MAX);
        for (int m = 0; m < mutations; m++) {
            int at = random.nextInt(wire.length);
            wire = switch (random.nextInt(4)) {
                case 0 -> replace(wire, at, randomByte(random));
                case 1 -> insert(wire, at, randomByte(random));
                case 2 -> wire.length > 1 ? delete(wire, at) : wire;
                default -> duplicate(wire, at, random.nextInt(Math.min(16, wire.length - at)) + 1);
            };
        }
        return wire;
    }

    private static byte randomByte(Random random) {
        return random.nextBoolean() ? INTERESTING[random.nextInt(INTERESTING.length)] : (byte) random.nextInt(256);
    }

    private static byte[] replace(byte[] wire, int at, byte b) {
        wire[at] = b;
        return wire;
    }

    private static byte[] insert(byte[] wire, int at, byte b) {
        byte[] out = new byte[wire.length + 1];
        System.arraycopy(wire, 0, out, 0, at);
        out[at] = b;
        System.arraycopy(wire, at, out, at + 1, wire.length - at);
        return out;
    }

    private static byte[] delete(byte[] wire, int at) {
        byte[] out = new byte[wire.length - 1];
        System.arraycopy(wire, 0, out, 0, at);
        System.arraycopy(wire, at + 1, out, at, wire.length - at - 1);
        return out;
    }

    private static byte[] duplicate(byte[] wire, int at, int count) {
        byte[] out = Arrays.copyOf(wire, wire.length + count);
        System.arraycopy(wire, at, out, at + count, wire.length - at);
        return out;
    }

    private static List<byte[]> randomPieces(byte[] wire, Random random) {
        List<byte[]> pieces = new ArrayList<>();
        for (int at = 0; at < wire.length; ) {
            int size = 1 + random.nextInt(Math.min(wire.length - at, 1 + random.nextInt(32)));
            pieces.add(Arrays.copyOfRange(wire, at, at + size));
            at += size;
        }
        return pieces;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(ISO_8859_1);
    }
}
