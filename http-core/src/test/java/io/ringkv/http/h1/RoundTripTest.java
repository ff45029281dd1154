package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.ringkv.http.Headers;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writer output parsed back: RequestWriter by RequestParser, ResponseWriter by ResponseParser.
 * Each batch is sent twice on the same parser to prove it resets between messages.
 */
class RoundTripTest {
    private static final long SEED = 0xC0DEC_2026L;
    private static final int RANDOM_MESSAGES = 300;

    /** One message: a body is sent with Content-Length unless {@code chunkSizes} is non-empty. */
    record Message(String startA, String startB, Headers headers, String body, List<Integer> chunkSizes, Headers trailers) {
        boolean chunked() {
            return !chunkSizes.isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void requestWriterOutputParsesBackIdentically(Chunking chunking) {
        List<Message> requests = List.of(
                new Message("GET", "/v0/status", Headers.of("Host", "n1:8080"), "", List.of(), new Headers()),
                new Message("PUT", "/v0/entity?id=k", Headers.of("Host", "n1", "X-Ts", "17"), "bin\u0000\u00ff\r\n", List.of(),
                        new Headers()),
                new Message("POST", "*", Headers.of("Host", ""), "hello chunked world", List.of(5, 1, 13), Headers.of("Sum", "9")),
                new Message("PUT", "http://n1/x", Headers.of("Host", "n1"), "", List.of(), new Headers()));
        byte[] wire = twice(encodeRequests(requests));
        List<String> expected = new ArrayList<>(expectedRequestTranscript(requests));
        expected.addAll(expectedRequestTranscript(requests));
        assertThat(RequestTranscript.of(chunking, H1Limits.defaults(), wire), equalTo(expected));
    }

    @ParameterizedTest
    @EnumSource(Chunking.class)
    void responseWriterOutputParsesBackIdentically(Chunking chunking) {
        List<Message> responses = List.of(
                new Message("200", "GET", new Headers(), "value\u0000\u00ff", List.of(), new Headers()),
                new Message("201", "PUT", new Headers(), "", List.of(), new Headers()),
                new Message("200", "GET", Headers.of("Content-Type", "text/plain"), "k1\nv1k2\nv2", List.of(5, 5),
                        Headers.of("X-Count", "2")),
                new Message("404", "GET", new Headers(), "", List.of(), new Headers()));
        byte[] wire = twice(encodeResponses(responses));
        List<String> methods = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            responses.forEach(r -> methods.add(r.startB()));
            expected.addAll(expectedResponseTranscript(responses));
        }
        assertThat(ResponseTranscript.of(chunking, H1Limits.defaults(), methods, wire, false), equalTo(expected));
    }

    @Test
    void randomRequestsRoundTrip() {
        Random random = new Random(SEED);
        List<Message> requests = new ArrayList<>();
        for (int i = 0; i < RANDOM_MESSAGES; i++) {
            Headers headers = randomHeaders(random).add("Host", "h" + i);
            requests.add(new Message(randomToken(random), "/" + randomToken(random), headers, randomBody(random),
                    List.of(), new Headers()));
        }
        requests = withRandomChunking(requests, random);
        List<byte[]> pieces = randomPieces(encodeRequests(requests), random);
        assertThat(RequestTranscript.parse(new RequestParser(H1Limits.defaults()), pieces),
                equalTo(expectedRequestTranscript(requests)));
    }

    @Test
    void randomResponsesRoundTrip() {
        Random random = new Random(SEED + 1);
        List<Message> responses = new ArrayList<>();
        List<String> methods = new ArrayList<>();
        for (int i = 0; i < RANDOM_MESSAGES; i++) {
            String status = String.valueOf(new int[] {200, 201, 202, 400, 404, 500, 599}[random.nextInt(7)]);
            responses.add(new Message(status, "GET", randomHeaders(random), randomBody(random), List.of(), new Headers()));
            methods.add("GET");
        }
        responses = withRandomChunking(responses, random);
        List<byte[]> pieces = randomPieces(encodeResponses(responses), random);
        assertThat(ResponseTranscript.parse(new ResponseParser(H1Limits.defaults()), methods, pieces, false),
                equalTo(expectedResponseTranscript(responses)));
    }

    private static byte[] encodeRequests(List<Message> requests) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Message r : requests) {
            Headers headers = framed(r);
            put(out, RequestWriter.head(r.startA(), r.startB(), headers));
            putBody(out, r, RequestWriter.lastChunk(r.trailers()), true);
        }
        return out.toByteArray();
    }

    private static byte[] encodeResponses(List<Message> responses) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Message r : responses) {
            put(out, ResponseWriter.head(Integer.parseInt(r.startA()), framed(r)));
            putBody(out, r, ResponseWriter.lastChunk(r.trailers()), false);
        }
        return out.toByteArray();
    }

    /** The message's headers plus its framing field, in a fresh Headers (inputs stay untouched). */
    private static Headers framed(Message m) {
        Headers headers = new Headers();
        for (int i = 0; i < m.headers().size(); i++) {
            headers.add(m.headers().name(i), m.headers().value(i));
        }
        return m.chunked() ? headers.add("Transfer-Encoding", "chunked")
                : headers.add("Content-Length", String.valueOf(m.body().length()));
    }

    /** Writes the body; request and response writers share the chunk helpers, alternated here to cover both. */
    private static void putBody(ByteArrayOutputStream out, Message m, ByteBuffer lastChunk, boolean requestSide) {
        if (!m.chunked()) {
            out.writeBytes(m.body().getBytes(ISO_8859_1));
            return;
        }
        int at = 0;
        for (int size : m.chunkSizes()) {
            put(out, requestSide ? RequestWriter.chunkHeader(size) : ResponseWriter.chunkHeader(size));
            out.writeBytes(m.body().substring(at, at + size).getBytes(ISO_8859_1));
            put(out, requestSide ? RequestWriter.chunkTrailer() : ResponseWriter.chunkTrailer());
            at += size;
        }
        put(out, lastChunk);
    }

    private static List<String> expectedRequestTranscript(List<Message> requests) {
        List<String> lines = new ArrayList<>();
        for (Message r : requests) {
            lines.add("head %s %s 1.1 %s keepAlive=true expectContinue=false length=%d".formatted(r.startA(), r.startB(),
                    framed(r), r.chunked() ? -1 : r.body().length()));
            addBodyAndEnd(lines, r);
        }
        return lines;
    }

    private static List<String> expectedResponseTranscript(List<Message> responses) {
        List<String> lines = new ArrayList<>();
        for (Message r : responses) {
            int status = Integer.parseInt(r.startA());
            String framing = r.chunked() ? "CHUNKED" : r.body().isEmpty() ? "NONE" : "LENGTH";
            lines.add("head %d %s 1.1 %s keepAlive=true %s length=%d".formatted(status, StatusReasons.phrase(status),
                    framed(r), framing, r.chunked() ? -1 : r.body().length()));
            addBodyAndEnd(lines, r);
        }
        return lines;
    }

    private static void addBodyAndEnd(List<String> lines, Message m) {
        if (!m.body().isEmpty()) {
            lines.add("body " + m.body());
        }
        lines.add("end " + m.trailers());
    }

    private static List<Message> withRandomChunking(List<Message> messages, Random random) {
        List<Message> out = new ArrayList<>();
        for (Message m : messages) {
            if (m.body().isEmpty() || random.nextBoolean()) {
                out.add(m);
                continue;
            }
            List<Integer> sizes = new ArrayList<>();
            for (int left = m.body().length(); left > 0; ) {
                int size = 1 + random.nextInt(left);
                sizes.add(size);
                left -= size;
            }
            Headers trailers = random.nextBoolean() ? new Headers() : Headers.of("T-" + randomToken(random), "v");
            out.add(new Message(m.startA(), m.startB(), m.headers(), m.body(), sizes, trailers));
        }
        return out;
    }

    private static Headers randomHeaders(Random random) {
        Headers headers = new Headers();
        for (int i = random.nextInt(5); i > 0; i--) {
            headers.add("X-" + randomToken(random), randomValue(random));
        }
        return headers;
    }

    private static String randomToken(Random random) {
        String tchars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        StringBuilder token = new StringBuilder();
        for (int i = 1 + random.nextInt(10); i > 0; i--) {
            token.append(tchars.charAt(random.nextInt(tchars.length())));
        }
        return token.toString();
    }

    /** A field value without leading or trailing whitespace (the parser strips it), obs-text included. */
    private static String randomValue(Random random) {
        StringBuilder value = new StringBuilder();
        for (int i = random.nextInt(20); i > 0; i--) {
            char c = (char) (0x20 + random.nextInt(0xE0));
            value.append(c == 0x7F ? '\t' : c);
        }
        return value.toString().strip();
    }

    private static String randomBody(Random random) {
        char[] body = new char[random.nextInt(4) == 0 ? 0 : random.nextInt(300)];
        for (int i = 0; i < body.length; i++) {
            body[i] = (char) random.nextInt(256);
        }
        return new String(body);
    }

    private static List<byte[]> randomPieces(byte[] wire, Random random) {
        List<byte[]> pieces = new ArrayList<>();
        for (int at = 0; at < wire.length; ) {
            int size = Math.min(wire.length - at, 1 + random.nextInt(64));
            pieces.add(java.util.Arrays.copyOfRange(wire, at, at + size));
            at += size;
        }
        return pieces;
    }

    private static byte[] twice(byte[] wire) {
        byte[] out = java.util.Arrays.copyOf(wire, wire.length * 2);
        System.arraycopy(wire, 0, out, wire.length, wire.length);
        return out;
    }

    private static void put(ByteArrayOutputStream out, ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        out.writeBytes(bytes);
    }
}
