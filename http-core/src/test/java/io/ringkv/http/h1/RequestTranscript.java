package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Drives a {@link RequestParser} the way a connection does (append, flip, drain, compact) and
 * records what it reported as readable lines. Body slices are copied at once, as they are only
 * valid until the next compact; consecutive body chunks merge into one line, so that the
 * transcript does not depend on how the input was split.
 */
final class RequestTranscript {
    private RequestTranscript() {
    }

    /** Parses {@code wire} with every feed of {@code chunking}; all must agree. Returns the transcript. */
    static List<String> of(Chunking chunking, H1Limits limits, byte[] wire) {
        List<String> first = null;
        for (List<byte[]> feed : chunking.feeds(wire)) {
            List<String> transcript = parse(new RequestParser(limits), feed);
            if (first == null) {
                first = transcript;
            } else {
                assertThat("same outcome however the input is split", transcript, equalTo(first));
            }
        }
        return first;
    }

    static List<String> of(Chunking chunking, String wire) {
        return of(chunking, H1Limits.defaults(), wire.getBytes(ISO_8859_1));
    }

    static List<String> parse(RequestParser parser, List<byte[]> pieces) {
        int total = pieces.stream().mapToInt(p -> p.length).sum();
        ByteBuffer buffer = ByteBuffer.allocate(Math.max(1, total));
        Recorder recorder = new Recorder();
        for (byte[] piece : pieces) {
            buffer.put(piece).flip();
            if (!drain(parser, buffer, recorder, total)) {
                break;
            }
            buffer.compact();
        }
        return recorder.lines;
    }

    /** @return false after a ParseError */
    private static boolean drain(RequestParser parser, ByteBuffer buffer, Recorder recorder, int total) {
        // Each event needs at least one input byte, except MessageEnd: a bound that catches a spinning parser.
        int eventsMax = 2 * total + 2;
        for (int events = 0; ; events++) {
            assertThat("parser makes progress", events, lessThanOrEqualTo(eventsMax));
            H1Event event = parser.next(buffer);
            if (event == null) {
                assertThat("null only once every byte is consumed", buffer.remaining(), is(0));
                return true;
            }
            recorder.record(event);
            if (event instanceof ParseError error) {
                assertThat("a ParseError is terminal", parser.next(buffer), equalTo(error));
                return false;
            }
        }
    }

    private static final class Recorder {
        final List<String> lines = new ArrayList<>();
        private StringBuilder body;

        void record(H1Event event) {
            if (event instanceof BodyChunk chunk) {
                appendBody(chunk.data());
                return;
            }
            body = null;
            lines.add(describe(event));
        }

        private void appendBody(ByteBuffer data) {
            assertThat("body slices are read-only", data.isReadOnly(), is(true));
            assertThat("body slices are never empty", data.hasRemaining(), is(true));
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            if (body == null) {
                body = new StringBuilder();
                lines.add("");
            }
            body.append(new String(bytes, ISO_8859_1));
            lines.set(lines.size() - 1, "body " + body);
        }

        private static String describe(H1Event event) {
            return switch (event) {
                case RequestHead head -> "head %s %s 1.%d %s keepAlive=%s expectContinue=%s length=%d".formatted(
                        head.method(), head.target(), head.minorVersion(), head.headers(), head.keepAlive(),
                        head.expectContinue(), head.contentLength());
                case MessageEnd end -> "end " + end.trailers();
                case ParseError error -> "error " + error.status() + " " + error.reason();
                case BodyChunk chunk -> throw new AssertionError("merged elsewhere");
            };
        }
    }
}
