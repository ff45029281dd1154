package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.RstStreamFrame;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A handler that also implements {@link HeadAdmission} answers requests at their heads: no body
 * byte is read for them, the handler never runs, and the connection (HTTP/1.1, when a body was
 * announced) or the stream (HTTP/2) ends after the answer. The memory budget here is smaller
 * than the bodies refused, so a refused body that was buffered would have been a 503.
 */
@Timeout(60)
class HeadAdmissionTest {
    private final ServerFixture fixture = new ServerFixture();
    /** The paths the handler ran for. */
    private final List<String> handled = new CopyOnWriteArrayList<>();

    /** Lets through requests carrying {@code X-Key: open}; answers the others 401 at their heads; throws for {@code /boom}. */
    private final class Gatekeeper implements HttpHandler, HeadAdmission {
        @Override
        public CompletionStage<Response> handle(Request request) {
            handled.add(request.path());
            return CompletableFuture.completedFuture(Response.text(200, "got " + request.body().length));
        }

        @Override
        public Optional<Response> admit(Head head) {
            if (head.path().equals("/boom")) {
                throw new IllegalStateException("a hook that fails");
            }
            return head.headers().first("X-Key").filter("open"::equals).isPresent() ? Optional.empty()
                    : Optional.of(Response.text(401, "no key; announced " + head.contentLength()));
        }
    }

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    private HttpServer start() throws Exception {
        return fixture.start(ServerFixture.config().bodyMemoryMax(64 * 1024).build(), new Gatekeeper());
    }

    @Test
    void http1ARefusedBodyIsNotReadAndTheConnectionCloses() throws Exception {
        HttpServer server = start();
        try (RawClient stranger = fixture.client(server)) {
            stranger.send("PUT /upload HTTP/1.1\r\nHost: test\r\nContent-Length: " + (1 << 20) + "\r\n\r\n");
            RawClient.Reply reply = stranger.read(); // not a byte of the body sent
            assertThat(reply.status(), is(401));
            assertThat(new String(reply.body(), StandardCharsets.UTF_8), is("no key; announced 1048576\n"));
            assertThat(reply.headers().get("connection"), is("close"));
            assertThat(stranger.closedByServer(), is(true));
        }
        try (RawClient friend = fixture.client(server)) {
            RawClient.Reply reply = friend.send("PUT /upload HTTP/1.1\r\nHost: test\r\nX-Key: open\r\nContent-Length: 10\r\n\r\n"
                    + "0123456789").read();
            assertThat(reply.status(), is(200));
            assertThat(new String(reply.body(), StandardCharsets.UTF_8), is("got 10\n"));
        }
        assertThat(handled, is(List.of("/upload")));
    }

    @Test
    void http1ARefusedRequestWithoutABodyKeepsTheConnection() throws Exception {
        HttpServer server = start();
        try (RawClient client = fixture.client(server)) {
            assertThat(client.send("GET /a HTTP/1.1\r\nHost: test\r\n\r\n").read().status(), is(401));
            assertThat(client.send("GET /b HTTP/1.1\r\nHost: test\r\nX-Key: open\r\n\r\n").read().status(), is(200));
        }
        assertThat(handled, is(List.of("/b")));
    }

    @Test
    void aHookThatThrowsIs500() throws Exception {
        HttpServer server = start();
        try (RawClient client = fixture.client(server)) {
            assertThat(client.send("GET /boom HTTP/1.1\r\nHost: test\r\n\r\n").read().status(), is(500));
            assertThat(client.send("GET /b HTTP/1.1\r\nHost: test\r\nX-Key: open\r\n\r\n").read().status(), is(200));
        }
    }

    @Test
    void http2ARefusedStreamIsAnsweredThenResetAndTheConnectionGoesOn() throws Exception {
        HttpServer server = start();
        try (RawH2 client = new RawH2(server.port()).open()) {
            client.send(client.request(1, "PUT", "/upload", false, "content-length", Integer.toString(1 << 20)),
                    new DataFrame(1, ByteBuffer.allocate(16 * 1024), false));
            Frame answer = client.readUntil(f -> f.streamId() == 1 && (f instanceof HeadersFrame || f instanceof RstStreamFrame));
            assertThat(answer instanceof HeadersFrame, is(true));
            assertThat(client.lastStatus(), is("401"));
            Frame reset = client.readUntil(f -> f instanceof RstStreamFrame r && r.streamId() == 1);
            assertThat(reset instanceof RstStreamFrame r && r.error() == ErrorCode.NO_ERROR, is(true));
            // DATA the client had already sent for the refused stream is dropped, not kept.
            client.send(new DataFrame(1, ByteBuffer.allocate(16 * 1024), false));

            client.send(client.request(3, "PUT", "/upload", false, "x-key", "open", "content-length", "10"),
                    new DataFrame(3, ByteBuffer.wrap("0123456789".getBytes(StandardCharsets.US_ASCII)), true));
            client.readUntil(f -> f.streamId() == 3 && f instanceof HeadersFrame);
            assertThat(client.lastStatus(), is("200"));
        }
        assertThat(handled, is(List.of("/upload")));
    }
}
