package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Streamed (chunked) bodies: lazy pulls under back-pressure, failures, and exactly-once close. */
class StreamingResponseTest {
    private static final int CHUNK_BYTES = 32 * 1024;

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    /** Chunks whose bytes are a function of their offset; may fail after {@code failAfter} chunks. */
    static final class CountingSource implements ChunkSource {
        final AtomicInteger pulls = new AtomicInteger();
        final AtomicLong pulledBytes = new AtomicLong();
        final AtomicInteger closes = new AtomicInteger();
        private final long chunks;
        private final long failAfter;

        CountingSource(long chunks, long failAfter) {
            this.chunks = chunks;
            this.failAfter = failAfter;
        }

        @Override
        public ByteBuffer next() throws IOException {
            int index = pulls.getAndIncrement();
            if (index == failAfter) {
                throw new IOException("storage failed mid-stream (expected by the test)");
            }
            if (index >= chunks) {
                return null;
            }
            byte[] chunk = new byte[CHUNK_BYTES];
            for (int i = 0; i < chunk.length; i++) {
                chunk[i] = expectedByte((long) index * CHUNK_BYTES + i);
            }
            pulledBytes.addAndGet(chunk.length);
            return ByteBuffer.wrap(chunk);
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    static byte expectedByte(long offset) {
        return (byte) (offset * 31 + (offset >>> 8));
    }

    private HttpServer serve(CountingSource source) throws IOException {
        return fixture.start(request -> CompletableFuture.completedFuture(Response.streamed(200, source)));
    }

    @Test
    void manyMegabytesToAClientThatStopsReadingArePulledOnlyAsFarAsBackPressureAllows() throws Exception {
        long chunks = 1024; // 32 MiB
        CountingSource source = new CountingSource(chunks, -1);
        RawClient client = fixture.client(serve(source));
        client.send(RawClient.get("/range"));
        assertThat(client.line(), is("HTTP/1.1 200 OK"));

        // Not reading: pulls must stop once socket buffers and the outbound queue are full.
        awaitQuiet(source.pulls);
        long parkedAt = source.pulledBytes.get();
        assertThat("bytes pulled while the client did not read", parkedAt, lessThan(16L * 1024 * 1024));

        // Now read everything, checking that pulls never run far ahead of what the client took.
        while (!client.line().isEmpty()) {
            // rest of the head
        }
        long received = readChunkedChecking(client.input(), source);
        assertThat(received, is(chunks * CHUNK_BYTES));
        Poll.until("the source is closed", () -> source.closes.get() == 1);
        assertThat(source.pulls.get(), is((int) chunks + 1));
    }

    /** Waits until the counter stops moving (the pump parked), with an overall deadline. */
    private static void awaitQuiet(AtomicInteger counter) throws InterruptedException {
        long deadline = System.nanoTime() + Poll.DEADLINE.toNanos();
        int last = -1;
        int stableRounds = 0;
        while (stableRounds < 20 && System.nanoTime() < deadline) {
            int now = counter.get();
            stableRounds = now == last && now > 0 ? stableRounds + 1 : 0;
            last = now;
            Thread.sleep(10);
        }
    }

    private static long readChunkedChecking(InputStream in, CountingSource source) throws IOException {
        long offset = 0;
        long maxAhead = 0;
        while (true) {
            String sizeLine = readLine(in);
            int size = Integer.parseInt(sizeLine, 16);
            if (size == 0) {
                assertThat(readLine(in), is(""));
                assertThat("most bytes pulled ahead of the client", maxAhead, lessThan(16L * 1024 * 1024));
                return offset;
            }
            byte[] data = in.readNBytes(size);
            for (byte b : data) {
                if (b != expectedByte(offset++)) {
                    throw new AssertionError("wrong byte at offset " + (offset - 1));
                }
            }
            maxAhead = Math.max(maxAhead, source.pulledBytes.get() - offset);
            assertThat(readLine(in), is(""));
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b == -1) {
                throw new IOException("end of stream inside a chunked body");
            }
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    @Test
    void sourceFailureAbortsTheConnectionWithoutTheLastChunk() throws Exception {
        CountingSource source = new CountingSource(100, 3);
        RawClient client = fixture.client(serve(source));
        client.send(RawClient.get("/range"));
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(200));
        assertThat(reply.chunked(), is(true));
        assertThat(reply.complete(), is(false));
        assertThat(reply.body().length, is(3 * CHUNK_BYTES));
        assertThat(client.closedByServer(), is(true));
        Poll.until("the source is closed", () -> source.closes.get() == 1);
    }

    @Test
    void clientGoingAwayClosesTheSourceExactlyOnce() throws Exception {
        CountingSource source = new CountingSource(Long.MAX_VALUE, -1);
        HttpServer server = serve(source);
        RawClient client = fixture.client(server);
        client.send(RawClient.get("/endless"));
        assertThat(client.line(), is("HTTP/1.1 200 OK"));
        client.close();
        Poll.until("the source is closed", () -> source.closes.get() >= 1);
        Poll.until("the connection is gone", () -> server.openConnections() == 0 && server.inFlight() == 0);
        assertThat(source.closes.get(), is(1));
    }

    @Test
    void headRequestForAStreamedResponseSendsNoBodyAndClosesTheSourceWithoutPulling() throws Exception {
        CountingSource source = new CountingSource(10, -1);
        RawClient client = fixture.client(serve(source));
        client.send("HEAD /range HTTP/1.1\r\nHost: t\r\n\r\n");
        RawClient.Reply reply = client.read(true);
        assertThat(reply.status(), is(200));
        assertThat(reply.header("Transfer-Encoding"), is("chunked"));
        Poll.until("the source is closed", () -> source.closes.get() == 1);
        assertThat(source.pulls.get(), is(0));
        client.send("HEAD /range HTTP/1.1\r\nHost: t\r\n\r\n"); // the connection is still in sync
        assertThat(client.read(true).status(), is(200));
    }

    @Test
    void jdkHttpClientReadsAStreamedBody() throws Exception {
        CountingSource source = new CountingSource(64, -1);
        HttpServer server = serve(source);
        try (HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            HttpResponse<byte[]> response = jdk.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/range")).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(response.statusCode(), is(200));
            byte[] body = response.body();
            assertThat(body.length, is(64 * CHUNK_BYTES));
            for (int i = 0; i < body.length; i++) {
                if (body[i] != expectedByte(i)) {
                    throw new AssertionError("wrong byte at " + i);
                }
            }
        }
    }

    @Test
    void http10ClientGetsTheStreamDelimitedByClose() throws Exception {
        CountingSource source = new CountingSource(4, -1);
        RawClient client = fixture.client(serve(source));
        client.send("GET /range HTTP/1.0\r\n\r\n");
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(200));
        assertThat(reply.chunked(), is(false));
        assertThat(reply.header("Connection"), is("close"));
        assertThat(reply.body().length, is(4 * CHUNK_BYTES));
    }
}
