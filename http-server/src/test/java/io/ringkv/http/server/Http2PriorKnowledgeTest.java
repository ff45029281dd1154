package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Connection;
import io.ringkv.http.h2.Http2Event;
import io.ringkv.http.h2.Role;
import io.ringkv.http.hpack.HeaderField;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * h2c by prior knowledge on the HTTP/1.1 port: a peer driving http-core's client-role
 * {@link Http2Connection} over a real socket, and curl {@code --http2-prior-knowledge} when installed.
 */
class Http2PriorKnowledgeTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void tearDown() throws Exception {
        fixture.closeAll();
    }

    static HttpHandler echo() {
        return request -> {
            if (request.path().equals("/stream")) {
                int chunks = Integer.parseInt(request.queryParam("n").orElse("3"));
                return CompletableFuture.completedFuture(Response.streamed(200, new ChunkSource() {
                    int sent;

                    @Override
                    public ByteBuffer next() {
                        return sent++ < chunks ? ByteBuffer.wrap(new byte[10_000]) : null;
                    }

                    @Override
                    public void close() {
                    }
                }));
            }
            if (request.path().equals("/fail")) {
                throw new IllegalStateException("handler failure on purpose");
            }
            String text = request.method() + " " + request.path() + " " + request.body().length;
            return CompletableFuture.completedFuture(Response.text(200, text).withHeader("X-Echo", "yes"));
        };
    }

    @Test
    void answersGetPostStreamedAndFailingHandlerOnOneConnection() throws Exception {
        HttpServer server = fixture.start(echo());
        try (H2Peer peer = new H2Peer(server.port())) {
            int get = peer.request("GET", "/hello", null);
            int post = peer.request("POST", "/upload", new byte[100_000]);
            int stream = peer.request("GET", "/stream?n=20", null);
            int fail = peer.request("GET", "/fail", null);
            Map<Integer, Answer> answers = peer.awaitAnswers(4);
            assertEquals("200", answers.get(get).status);
            assertEquals("GET /hello 0\n", answers.get(get).text());
            assertEquals("yes", answers.get(get).headers.get("x-echo"));
            assertEquals("POST /upload 100000\n", answers.get(post).text());
            assertEquals(200_000, answers.get(stream).body.size());
            assertEquals("500", answers.get(fail).status);
        }
        try (RawClient h1 = fixture.client(server)) {
            h1.send("GET /still-http1 HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, h1.read().status());
        }
    }

    @Test
    void streamsOverTheInFlightBudgetGet503NotAQueue() throws Exception {
        CompletableFuture<Response> gate = new CompletableFuture<>();
        CountDownLatch entered = new CountDownLatch(1);
        HttpServer server = fixture.start(ServerFixture.config().inFlightMax(1).build(), request -> {
            entered.countDown();
            return gate;
        });
        try (H2Peer holder = new H2Peer(server.port()); H2Peer late = new H2Peer(server.port())) {
            int held = holder.request("GET", "/a", null);
            assertTrue(entered.await(30, TimeUnit.SECONDS), "first request reached the handler");
            int refused = late.request("GET", "/b", null);
            assertEquals("503", late.awaitAnswers(1).get(refused).status);
            gate.complete(Response.text(200, "late"));
            assertEquals("200", holder.awaitAnswers(1).get(held).status);
        }
    }

    @Test
    void rapidResetClosesTheAbusiveConnectionOnly() throws Exception {
        HttpServer server = fixture.start(echo());
        try (H2Peer attacker = new H2Peer(server.port()); H2Peer bystander = new H2Peer(server.port())) {
            attacker.rapidReset(5_000);
            Http2Event.GoAwayReceived goAway = attacker.awaitClose();
            assertTrue(goAway != null, "the server sent GOAWAY before closing");
            assertEquals(io.ringkv.http.h2.ErrorCode.ENHANCE_YOUR_CALM, goAway.code());
            int id = bystander.request("GET", "/unaffected", null);
            assertEquals("GET /unaffected 0\n", bystander.awaitAnswers(1).get(id).text());
        }
    }

    @Test
    void aPeerThatNeverOpensItsWindowIsClosedAndItsPermitReturns() throws Exception {
        HttpServer server = fixture.start(ServerFixture.config().idleTimeout(java.time.Duration.ofMillis(300)).build(),
                echo());
        try (H2Peer stingy = new H2Peer(server.port())) {
            stingy.neverOpenWindow = true;
            stingy.request("GET", "/stream?n=300", null); // 3 MB, over the 1 MiB stream window this peer grants
            Http2Event.GoAwayReceived goAway = stingy.awaitClose();
            assertTrue(goAway != null, "the server sent GOAWAY before closing");
            assertEquals(io.ringkv.http.h2.ErrorCode.ENHANCE_YOUR_CALM, goAway.code());
            Poll.until("the stalled stream's permit returned", () -> server.inFlight() == 0);
        }
        // Connected now: a connection left without a stream for the (short) idle timeout is closed.
        try (H2Peer bystander = new H2Peer(server.port())) {
            int id = bystander.request("GET", "/unaffected", null);
            assertEquals("GET /unaffected 0\n", bystander.awaitAnswers(1).get(id).text());
        }
    }

    @Test
    void shutdownSendsGoAwayAndLetsAcceptedStreamsFinish() throws Exception {
        CompletableFuture<Response> gate = new CompletableFuture<>();
        CountDownLatch entered = new CountDownLatch(1);
        HttpServer server = fixture.start(request -> {
            entered.countDown();
            return gate;
        });
        try (H2Peer peer = new H2Peer(server.port())) {
            int held = peer.request("GET", "/held", null);
            assertTrue(entered.await(30, TimeUnit.SECONDS), "request reached the handler");
            Thread stopper = Thread.ofPlatform().start(() -> server.shutdown(java.time.Duration.ofSeconds(20)));
            peer.readUntil(() -> peer.goAway != null);
            assertEquals(io.ringkv.http.h2.ErrorCode.NO_ERROR, peer.goAway.code());
            assertEquals(held, peer.goAway.lastStreamId());
            gate.complete(Response.text(200, "finished"));
            assertEquals("finished\n", peer.awaitAnswers(1).get(held).text());
            stopper.join(30_000);
        }
    }

    @Test
    void curlPriorKnowledge() throws Exception {
        assumeTrue(new File("/usr/bin/curl").canExecute(), "curl is not installed: skipped");
        HttpServer server = fixture.start(echo());
        Process curl = new ProcessBuilder("curl", "-sS", "--http2-prior-knowledge", "-w", "%{http_version}",
                "http://127.0.0.1:" + server.port() + "/by-curl").redirectErrorStream(true).start();
        assertTrue(curl.waitFor(30, TimeUnit.SECONDS), "curl finished");
        String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals("GET /by-curl 0\n2", out);
    }

    @Test
    void nghttpPriorKnowledgeWithManyStreams() throws Exception {
        assumeTrue(new File("/usr/bin/nghttp").canExecute(),
                "nghttp is not installed (Debian package nghttp2-client): skipped");
        HttpServer server = fixture.start(echo());
        List<String> command = new ArrayList<>(List.of("nghttp", "-n", "--stat"));
        for (int i = 0; i < 20; i++) {
            command.add("http://127.0.0.1:" + server.port() + "/stream?n=50&i=" + i); // nghttp drops repeated URIs
        }
        Process nghttp = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(nghttp.waitFor(60, TimeUnit.SECONDS), "nghttp finished");
        String out = new String(nghttp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, nghttp.exitValue(), out);
        // --stat prints one line per completed request, each naming its status.
        assertEquals(20, out.lines().filter(line -> line.contains(" 200 ")).count(), out);
    }

    record Answer(String status, Map<String, String> headers, ByteArrayOutputStream body) {
        String text() {
            return body.toString(StandardCharsets.UTF_8);
        }
    }

    /** A minimal HTTP/2 client over a blocking socket, driving http-core's client role. Test helper. */
    static final class H2Peer implements AutoCloseable {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private final Http2Connection h2 = new Http2Connection(Role.CLIENT, Http2Config.defaults());
        private final Map<Integer, Answer> answers = new HashMap<>();
        private final List<Integer> done = new ArrayList<>();
        private final Map<Integer, ByteBuffer> unsent = new HashMap<>();
        volatile Http2Event.GoAwayReceived goAway;
        private boolean ignoreResets;
        /** Takes DATA but never gives credit back: the server's send windows stay shut. */
        boolean neverOpenWindow;

        H2Peer(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(30_000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
            h2.start();
            flush();
        }

        int request(String method, String path, byte[] body) throws IOException {
            List<HeaderField> fields = List.of(new HeaderField(":method", method), new HeaderField(":scheme", "http"),
                    new HeaderField(":authority", "127.0.0.1"), new HeaderField(":path", path));
            int id = h2.openStream(fields, body == null);
            if (body != null) {
                unsent.put(id, ByteBuffer.wrap(body));
                sendUnsent();
            }
            flush();
            return id;
        }

        private void sendUnsent() {
            unsent.entrySet().removeIf(e -> {
                h2.sendData(e.getKey(), e.getValue(), true);
                return !e.getValue().hasRemaining();
            });
        }

        Map<Integer, Answer> awaitAnswers(int count) throws IOException {
            readUntil(() -> done.size() >= count);
            return answers;
        }

        /** Reads and handles frames until {@code condition} holds (the socket timeout bounds each read). */
        void readUntil(java.util.function.BooleanSupplier condition) throws IOException {
            byte[] buffer = new byte[64 * 1024];
            ByteBuffer pending = ByteBuffer.allocate(0);
            while (!condition.getAsBoolean()) {
                int n = in.read(buffer);
                if (n < 0) {
                    throw new IOException("server closed the connection");
                }
                ByteBuffer joined = ByteBuffer.allocate(pending.remaining() + n);
                joined.put(pending).put(buffer, 0, n).flip();
                for (Http2Event event : h2.receive(joined, System.nanoTime())) {
                    onEvent(event);
                }
                pending = joined.hasRemaining() ? ByteBuffer.allocate(joined.remaining()).put(joined).flip()
                        : ByteBuffer.allocate(0);
                sendUnsent();
                flush();
            }
        }

        /** Opens and at once resets {@code count} streams, in one burst (rapid reset, CVE-2023-44487). */
        void rapidReset(int count) throws IOException {
            ignoreResets = true;
            List<HeaderField> fields = List.of(new HeaderField(":method", "GET"), new HeaderField(":scheme", "http"),
                    new HeaderField(":authority", "127.0.0.1"), new HeaderField(":path", "/reset"));
            for (int i = 0; i < count; i++) {
                int id = h2.openStream(fields, true);
                h2.resetStream(id, io.ringkv.http.h2.ErrorCode.CANCEL);
            }
            flush();
        }

        /** Reads until the server closes the connection; returns the GOAWAY seen, if any. */
        Http2Event.GoAwayReceived awaitClose() throws IOException {
            byte[] buffer = new byte[64 * 1024];
            while (true) {
                int n;
                try {
                    n = in.read(buffer);
                } catch (java.net.SocketException reset) {
                    return goAway;
                }
                if (n < 0) {
                    return goAway;
                }
                for (Http2Event event : h2.receive(ByteBuffer.wrap(buffer, 0, n), System.nanoTime())) {
                    if (event instanceof Http2Event.GoAwayReceived g) {
                        goAway = g;
                    }
                }
            }
        }

        private void onEvent(Http2Event event) throws IOException {
            switch (event) {
                case Http2Event.HeadersReceived h -> {
                    Map<String, String> headers = new HashMap<>();
                    h.fields().forEach(f -> headers.put(f.name(), f.value()));
                    answers.putIfAbsent(h.streamId(), new Answer(headers.get(":status"), headers, new ByteArrayOutputStream()));
                    if (h.endStream()) {
                        done.add(h.streamId());
                    }
                }
                case Http2Event.DataReceived d -> {
                    int length = d.data().remaining();
                    byte[] bytes = new byte[length];
                    d.data().get(bytes);
                    answers.get(d.streamId()).body.writeBytes(bytes);
                    if (!neverOpenWindow) {
                        h2.consumed(d.streamId(), length);
                    }
                    if (d.endStream()) {
                        done.add(d.streamId());
                    }
                }
                case Http2Event.StreamReset r -> {
                    if (!ignoreResets) {
                        throw new IOException("stream reset: " + r);
                    }
                }
                case Http2Event.ConnectionFailed f -> throw new IOException("connection failed: " + f);
                case Http2Event.GoAwayReceived g -> goAway = g;
                default -> { }
            }
        }

        private void flush() throws IOException {
            for (ByteBuffer b : h2.drainOutput()) {
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                out.write(bytes);
            }
            out.flush();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
