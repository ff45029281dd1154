package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.RstStreamFrame;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link HeadAdmission#bodyBytesMax}: a request its head check lets through may send at most that
 * many body bytes, also when the head does not announce a length (chunked on HTTP/1.1, DATA
 * without {@code content-length} on HTTP/2). Past it: 413, the rest unread (HTTP/1.1: the
 * connection closes; HTTP/2: RST_STREAM after the answer, the connection goes on), the handler
 * never runs. A body within it, or on a route without a limit of its own, is served as before.
 */
@Timeout(60)
class HeadBodyLimitTest {
    /** What {@code /small} takes. */
    private static final int SMALL_BYTES_MAX = 8 * 1024;
    private static final int CHUNK_BYTES = 4 * 1024;

    private final ServerFixture fixture = new ServerFixture();
    /** The paths the handler ran for. */
    private final List<String> handled = new CopyOnWriteArrayList<>();

    /** Lets every request through; {@code /small} takes at most {@link #SMALL_BYTES_MAX} body bytes, {@code /nothing} none. */
    private final class Limiter implements HttpHandler, HeadAdmission {
        @Override
        public CompletionStage<Response> handle(Request request) {
            handled.add(request.path());
            return CompletableFuture.completedFuture(Response.text(200, "got " + request.body().length));
        }

        @Override
        public Optional<Response> admit(Head head) {
            return Optional.empty();
        }

        @Override
        public long bodyBytesMax(Head head) {
            return switch (head.path()) {
                case "/small" -> SMALL_BYTES_MAX;
                case "/nothing" -> 0;
                default -> Long.MAX_VALUE;
            };
        }
    }

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    private HttpServer start() throws Exception {
        return fixture.start(new Limiter());
    }

    private static String chunk(int size) {
        char[] data = new char[size];
        Arrays.fill(data, 'x');
        return Integer.toHexString(size) + "\r\n" + new String(data) + "\r\n";
    }

    @Test
    void http1AChunkedBodyPastTheRouteLimitIs413AndTheConnectionCloses() throws Exception {
        HttpServer server = start();
        try (RawClient client = fixture.client(server)) {
            client.send("POST /small HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n");
            // Up to 4 MiB of chunks, until the answer arrives or the server stops taking them.
            long sent = 0;
            try {
                while (sent < (4 << 20) && client.input().available() == 0) {
                    client.send(chunk(CHUNK_BYTES));
                    sent += CHUNK_BYTES;
                }
            } catch (IOException closedOnUs) {
                // the server closed after its answer: the rest was not read
            }
            RawClient.Reply reply = client.read();
            assertThat(reply.status(), is(413));
            assertThat(reply.text(), is("request body too large: this request takes at most " + SMALL_BYTES_MAX + " bytes\n"));
            assertThat(reply.headers().get("connection"), is("close"));
            assertThat(client.closedByServer(), is(true));
        }
        assertThat(handled, is(List.of()));
    }

    @Test
    void http1AChunkedBodyWithinTheLimitsIsServed() throws Exception {
        HttpServer server = start();
        try (RawClient client = fixture.client(server)) {
            RawClient.Reply small = client.send("POST /small HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + chunk(CHUNK_BYTES) + chunk(CHUNK_BYTES) + "0\r\n\r\n").read();
            assertThat(small.status(), is(200));
            assertThat(small.text(), is("got " + SMALL_BYTES_MAX + "\n"));
            StringBuilder big = new StringBuilder("PUT /upload HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n");
            for (int i = 0; i < 64; i++) {
                big.append(chunk(CHUNK_BYTES));
            }
            RawClient.Reply upload = client.send(big.append("0\r\n\r\n").toString()).read();
            assertThat(upload.status(), is(200));
            assertThat(upload.text(), is("got " + 64 * CHUNK_BYTES + "\n"));
        }
        assertThat(handled, is(List.of("/small", "/upload")));
    }

    @Test
    void http2DataPastTheRouteLimitIs413ThenResetAndTheConnectionGoesOn() throws Exception {
        HttpServer server = start();
        try (RawH2 client = new RawH2(server.port()).open()) {
            client.send(client.request(1, "POST", "/small", false));
            int sent = 0;
            while (sent <= SMALL_BYTES_MAX) {
                client.send(new DataFrame(1, ByteBuffer.allocate(CHUNK_BYTES), false));
                sent += CHUNK_BYTES;
            }
            Frame answer = client.readUntil(f -> f.streamId() == 1 && (f instanceof HeadersFrame || f instanceof RstStreamFrame));
            assertThat(answer instanceof HeadersFrame, is(true));
            assertThat(client.lastStatus(), is("413"));
            Frame reset = client.readUntil(f -> f instanceof RstStreamFrame r && r.streamId() == 1);
            assertThat(reset instanceof RstStreamFrame r && r.error() == ErrorCode.NO_ERROR, is(true));
            // DATA the client had already sent for the refused stream is dropped, not kept.
            client.send(new DataFrame(1, ByteBuffer.allocate(CHUNK_BYTES), false));

            client.send(client.request(3, "POST", "/small", false),
                    new DataFrame(3, ByteBuffer.allocate(CHUNK_BYTES), false),
                    new DataFrame(3, ByteBuffer.allocate(CHUNK_BYTES), true));
            client.readUntil(f -> f.streamId() == 3 && f instanceof HeadersFrame);
            assertThat(client.lastStatus(), is("200"));
            client.send(client.request(5, "PUT", "/upload", false));
            for (int i = 0; i < 63; i++) {
                client.send(new DataFrame(5, ByteBuffer.allocate(CHUNK_BYTES), false));
            }
            client.send(new DataFrame(5, ByteBuffer.allocate(CHUNK_BYTES), true));
            client.readUntil(f -> f.streamId() == 5 && f instanceof HeadersFrame);
            assertThat(client.lastStatus(), is("200"));
        }
        assertThat(handled, is(List.of("/small", "/upload")));
    }

    /**
     * Streams refused for their bodies (413, then our RST_STREAM) count against the rapid-reset
     * limit (200 a second), like the resets a peer's frames provoke: streams refused 90 at a time
     * (under the concurrency limit, each batch answered before the next is sent) fail the
     * connection with GOAWAY(ENHANCE_YOUR_CALM) within 2,000 of them, instead of being answered
     * without end; another connection is still served.
     */
    @Test
    void http2StreamsRefusedForTheirBodiesCountAgainstTheResetLimit() throws Exception {
        HttpServer server = start();
        try (RawH2 flooder = new RawH2(server.port()).open()) {
            // Room for all the 413s' bodies: the flooder never has to return credit.
            flooder.send(new io.ringkv.http.h2.WindowUpdateFrame(0, 1 << 30));
            Frame end = null;
            int nextId = 1;
            for (int batch = 0; batch < 22 && end == null; batch++) {
                List<Frame> frames = new java.util.ArrayList<>();
                for (int i = 0; i < 90; i++) {
                    frames.add(flooder.request(nextId, "POST", "/nothing", false));
                    frames.add(new DataFrame(nextId, ByteBuffer.allocate(1), false));
                    nextId += 2;
                }
                int lastId = nextId - 2;
                try {
                    flooder.send(frames.toArray(Frame[]::new));
                } catch (IOException closedEarly) {
                    // the server closed: its GOAWAY is still read
                }
                Frame seen = flooder.readUntil(f -> f instanceof io.ringkv.http.h2.GoAwayFrame
                        || f instanceof RstStreamFrame r && r.streamId() == lastId);
                if (!(seen instanceof RstStreamFrame)) {
                    end = seen;
                }
            }
            if (end == null) {
                flooder.send(new io.ringkv.http.h2.PingFrame(9, false));
                end = flooder.readUntil(f -> f instanceof io.ringkv.http.h2.GoAwayFrame
                        || f instanceof io.ringkv.http.h2.PingFrame p && p.ack());
            }
            assertThat("GOAWAY(ENHANCE_YOUR_CALM) rather than " + end, end instanceof io.ringkv.http.h2.GoAwayFrame g
                    && g.errorCode() == ErrorCode.ENHANCE_YOUR_CALM.code, is(true));
            assertThat("streams before it were answered (413)",
                    flooder.frames().stream().filter(f -> f instanceof HeadersFrame).count() > 0, is(true));
        }
        try (RawH2 bystander = new RawH2(server.port()).open()) {
            bystander.send(bystander.request(1, "POST", "/small", false), new DataFrame(1, ByteBuffer.allocate(10), true));
            bystander.readUntil(f -> f.streamId() == 1 && f instanceof HeadersFrame);
            assertThat(bystander.lastStatus(), is("200"));
        }
    }
}
