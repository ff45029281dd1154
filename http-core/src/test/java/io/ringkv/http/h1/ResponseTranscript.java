package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Drives a {@link ResponseParser} as a client connection does and records its events as lines
 * (body chunks merged, as in {@link RequestTranscript}). Each response is announced with the
 * next method of the list once the previous one has ended. A {@link MalformedResponseException}
 * is recorded as {@code "error <reason>"}; so is one from {@link ResponseParser#endOfInput()}
 * when the feed ends with the server closing.
 */
final class ResponseTranscript {
    private ResponseTranscript() {
    }

    /** Parses {@code wire} with every feed of {@code chunking}; all must agree. */
    static List<String> of(Chunking chunking, H1Limits limits, List<String> methods, byte[] wire, boolean closeAtEnd) {
        List<String> first = null;
        for (List<byte[]> feed : chunking.feeds(wire)) {
            List<String> transcript = parse(new ResponseParser(limits), methods, feed, closeAtEnd);
            if (first == null) {
                first = transcript;
            } else {
                assertThat("same outcome however the input is split", transcript, equalTo(first));
            }
        }
        return first;
    }

    static List<String> of(Chunking chunking, String method, String wire, boolean closeAtEnd) {
        return of(chunking, H1Limits.defaults(), List.of(method), wire.getBytes(ISO_8859_1), closeAtEnd);
    }

    static List<String> parse(ResponseParser parser, List<String> methods, List<byte[]> pieces, boolean closeAtEnd) {
        Driver driver = new Driver(parser, methods);
        int total = pieces.stream().mapToInt(p -> p.length).sum();
        ByteBuffer buffer = ByteBuffer.allocate(Math.max(1, total));
        for (byte[] piece : pieces) {
            buffer.put(piece).flip();
            if (!driver.drain(buffer, 2 * total + 2)) {
                return driver.lines;
            }
            buffer.compact();
        }
        if (closeAtEnd) {
            driver.close();
        }
        return driver.lines;
    }

    private static final class Driver {
        final List<String> lines = new ArrayList<>();
        private final ResponseParser parser;
        private final Deque<String> methods;
        private StringBuilder body;
        /** After a protocol switch the connection is no longer HTTP/1.1: announce nothing more. */
        private boolean switched;

        Driver(ResponseParser parser, List<String> methods) {
            this.parser = parser;
            this.methods = new ArrayDeque<>(methods);
            parser.begin(this.methods.poll());
        }

        /** @return false after an error */
        boolean drain(ByteBuffer buffer, int eventsMax) {
            for (int events = 0; ; events++) {
                assertThat("parser makes progress", events, lessThanOrEqualTo(eventsMax));
                H1ResponseEvent event;
                try {
                    event = parser.next(buffer);
                } catch (MalformedResponseException e) {
                    recordError(e, buffer);
                    return false;
                }
                if (event == null) {
                    return true;
                }
                record(event);
            }
        }

        void close() {
            try {
                MessageEnd end = parser.endOfInput();
                if (end != null) {
                    record(end);
                }
            } catch (MalformedResponseException e) {
                recordError(e, ByteBuffer.allocate(0));
            }
        }

        private void recordError(MalformedResponseException e, ByteBuffer buffer) {
            lines.add("error " + e.reason());
            MalformedResponseException again = assertThrows(MalformedResponseException.class, () -> parser.next(buffer));
            assertThat("an error is terminal", again, sameInstance(e));
        }

        private void record(H1ResponseEvent event) {
            if (event instanceof BodyChunk chunk) {
                appendBody(chunk.data());
                return;
            }
            body = null;
            lines.add(describe(event));
            if (event instanceof ResponseHead head && head.framing() == ResponseHead.Framing.SWITCHED) {
                switched = true;
            }
            if (event instanceof MessageEnd && !methods.isEmpty() && !switched) {
                parser.begin(methods.poll());
            }
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

        private static String describe(H1ResponseEvent event) {
            return switch (event) {
                case InterimResponse interim -> "interim " + interim.status() + " " + interim.headers();
                case ResponseHead head -> "head %d %s 1.%d %s keepAlive=%s %s length=%d".formatted(head.status(),
                        head.reason(), head.minorVersion(), head.headers(), head.keepAlive(), head.framing(),
                        head.contentLength());
                case MessageEnd end -> "end " + end.trailers();
                case BodyChunk chunk -> throw new AssertionError("merged elsewhere");
            };
        }
    }
}
