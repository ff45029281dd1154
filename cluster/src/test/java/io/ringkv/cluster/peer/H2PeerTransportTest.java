package io.ringkv.cluster.peer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.RouteStats;
import io.ringkv.http.server.ChunkSource;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.HttpServer;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.net.EventLoop;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link H2PeerTransport} against ringkv's HTTP server on 127.0.0.1 (HTTP/2 by prior knowledge),
 * and against peers that misbehave: one that is not there, one that takes the connection and says
 * nothing, one that answers too much, one that stalls mid-body.
 */
class H2PeerTransportTest {
    private static final long WAIT_SECONDS = 20;
    private static final int ANSWER_MAX = 1 << 20;

    private final ExecutorService blocking = Executors.newFixedThreadPool(2);
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final H2PeerTransport transport = new H2PeerTransport(null, blocking, null, Duration.ofMillis(500),
            Duration.ofSeconds(1), Duration.ofSeconds(2), ANSWER_MAX);

    @AfterEach
    void closeEverything() throws Exception {
        release.countDown();
        transport.close();
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        blocking.shutdownNow();
    }

    @Test
    void aRequestBodyLargerThanEveryWindowArrivesWholeAndItsAnswerComesBack() throws Exception {
        // 3 MiB: more than the stream's initial window (1 MiB here, 64 KiB by the protocol's
        // default), so the body leaves in steps as the server's WINDOW_UPDATEs arrive.
        String origin = serve(request -> CompletableFuture.completedFuture(
                Response.of(200, request.body()).withHeader("X-Ringkv-Seen", Integer.toString(request.body().length))));
        byte[] body = new byte[3 << 20];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31);
        }
        byte[] smaller = java.util.Arrays.copyOf(body, ANSWER_MAX); // the answer echoes it: within the bound
        PeerAnswer answer = await(transport.send(request(origin, "PUT", "/echo?x=1", smaller)));
        assertThat(answer.status(), is(200));
        assertThat(answer.body(), equalTo(smaller));
        assertThat(answer.fields().first("x-ringkv-seen").orElseThrow(), is(Integer.toString(smaller.length)));

        String counted = serve(request -> CompletableFuture.completedFuture(Response.text(200, Integer.toString(request.body().length))));
        PeerAnswer large = await(transport.send(request(counted, "PUT", "/count", body)));
        assertThat(new String(large.body(), java.nio.charset.StandardCharsets.US_ASCII).strip(), is(Integer.toString(body.length)));
    }

    @Test
    void manyConcurrentRequestsShareOneConnectionPerLoop() throws Exception {
        AtomicInteger ports = new AtomicInteger();
        java.util.Set<Integer> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        String origin = serve(request -> {
            seen.add(request.remote().getPort());
            ports.incrementAndGet();
            return CompletableFuture.completedFuture(Response.of(200, request.path().getBytes()));
        });
        List<CompletableFuture<PeerAnswer>> answers = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            answers.add(transport.send(request(origin, "GET", "/n/" + i, new byte[0])));
        }
        for (int i = 0; i < answers.size(); i++) {
            assertThat(new String(await(answers.get(i)).body()), is("/n/" + i));
        }
        assertThat(seen.size(), is(1));
        RouteStats route = transport.stats().orElseThrow().routes().getFirst();
        assertThat(route.connections(), is(1));
        assertThat(transport.stats().orElseThrow().connectionsOpened(), is(1L));
    }

    @Test
    void aRequestMadeOnALoopGoesOnThatLoopsConnectionAndIsAnsweredThere() throws Exception {
        String origin = serve(request -> CompletableFuture.completedFuture(Response.of(204)));
        io.ringkv.net.EventLoopGroup group = new io.ringkv.net.EventLoopGroup(2, "peer-test-loop");
        H2PeerTransport onLoops = new H2PeerTransport(group, blocking, null, Duration.ofMillis(500), Duration.ofSeconds(1),
                Duration.ofSeconds(2), ANSWER_MAX);
        resources.add(group);
        resources.add(onLoops);
        // Each loop asks twice in a row: requests handed to a loop in turn would land on the
        // other loop for one of the two.
        for (EventLoop loop : group.loops()) {
            for (int request = 0; request < 2; request++) {
                CompletableFuture<String> asker = new CompletableFuture<>();
                CompletableFuture<CompletableFuture<String>> answerer = new CompletableFuture<>();
                // The continuation is attached inside the loop's task: the answer cannot be read
                // before the task returns, so it completes on whichever loop reads it.
                loop.execute(() -> {
                    asker.complete(Thread.currentThread().getName());
                    answerer.complete(onLoops.send(request(origin, "GET", "/", new byte[0]))
                            .thenApply(answer -> Thread.currentThread().getName()));
                });
                assertThat(await(await(answerer)), is(await(asker)));
            }
        }
        // One connection per loop, none for requests from elsewhere.
        assertThat(onLoops.stats().orElseThrow().connectionsOpened(), is(2L));
    }

    @Test
    void anAnswerLargerThanTheBoundFailsAndTheConnectionServesTheNextRequest() throws Exception {
        String origin = serve(request -> CompletableFuture.completedFuture(request.path().equals("/big")
                ? Response.of(200, new byte[ANSWER_MAX + 1]) : Response.of(200, new byte[] {7})));
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> transport.send(request(origin, "GET", "/big", new byte[0])).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause(), instanceOf(IOException.class));
        assertThat(e.getCause().getMessage(), containsString("more than " + ANSWER_MAX + " bytes"));
        assertThat(await(transport.send(request(origin, "GET", "/small", new byte[0]))).body(), equalTo(new byte[] {7}));
        assertThat(transport.stats().orElseThrow().connectionsOpened(), is(1L));
    }

    @Test
    void anAnswerThatDoesNotComeFailsWithATimeoutAndTheConnectionServesTheNextRequest() throws Exception {
        String origin = serve(request -> request.path().equals("/never") ? new CompletableFuture<>()
                : CompletableFuture.completedFuture(Response.of(200, new byte[] {1})));
        PeerRequest never = new PeerRequest(origin, "GET", "/never", Map.of(), new byte[0], Duration.ofMillis(300));
        ExecutionException e = assertThrows(ExecutionException.class, () -> transport.send(never).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause(), instanceOf(HttpTimeoutException.class));
        assertThat(await(transport.send(request(origin, "GET", "/now", new byte[0]))).body(), equalTo(new byte[] {1}));
        assertThat(transport.stats().orElseThrow().connectionsOpened(), is(1L));
    }

    @Test
    void aPeerThatIsNotThereFailsTheRequestWithAConnectException() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> transport.send(request("http://127.0.0.1:" + port, "GET", "/", new byte[0])).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause(), instanceOf(ConnectException.class));
    }

    @Test
    void aPeerThatTakesTheConnectionButNeverSpeaksHttp2IsGivenUp() throws Exception {
        ServerSocket mute = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        resources.add(mute);
        List<Socket> accepted = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    accepted.add(mute.accept()); // reads nothing, writes nothing
                }
            } catch (IOException closed) {
                // the test ended
            }
        });
        resources.add(() -> {
            for (Socket socket : accepted) {
                socket.close();
            }
            acceptor.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        });
        // The request's own timeout is long: the connection's bound (connect timeout plus PING
        // timeout, 2.5 s here) is what ends it.
        PeerRequest patient = new PeerRequest("http://127.0.0.1:" + mute.getLocalPort(), "GET", "/", Map.of(), new byte[0],
                Duration.ofSeconds(60));
        ExecutionException e = assertThrows(ExecutionException.class, () -> transport.send(patient).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause(), instanceOf(HttpConnectTimeoutException.class));
    }

    @Test
    void aStreamedAnswerLargerThanTheWindowsIsReadWhole() throws Exception {
        int chunks = 40; // 20 MiB: past the stream window (1 MiB) and the connection window (16 MiB)
        String origin = serve(request -> CompletableFuture.completedFuture(Response.streamed(200, new ChunkSource() {
            private int sent;

            @Override
            public ByteBuffer next() {
                if (sent == chunks) {
                    return null;
                }
                byte[] chunk = new byte[512 * 1024];
                java.util.Arrays.fill(chunk, (byte) sent++);
                return ByteBuffer.wrap(chunk);
            }

            @Override
            public void close() {
            }
        })));
        PeerStreamedAnswer answer = await(transport.open(request(origin, "GET", "/stream", new byte[0])));
        assertThat(answer.status(), is(200));
        long total = 0;
        byte[] buffer = new byte[100_000];
        try (InputStream body = answer.body()) {
            for (int n = body.read(buffer); n != -1; n = body.read(buffer)) {
                assertThat((int) buffer[0], is((int) (total / (512 * 1024))));
                total += n;
            }
        }
        assertThat(total, is((long) chunks * 512 * 1024));
        // The windows came back as the body was read: the same connection serves another.
        PeerStreamedAnswer again = await(transport.open(request(origin, "GET", "/stream", new byte[0])));
        try (InputStream body = again.body()) {
            assertThat(body.readAllBytes().length, is(chunks * 512 * 1024));
        }
        assertThat(transport.stats().orElseThrow().connectionsOpened(), is(1L));
    }

    @Test
    void streamedAnswersClosedBeforeTheirEndGiveTheirUnreadBytesBackToTheConnection() throws Exception {
        // Each answer is larger than its stream's window (1 MiB): the peer fills the window, the
        // reader takes one byte and closes. Twenty such answers leave 20 MiB unread, more than the
        // connection's window (16 MiB): unless the unread bytes are credited back on close, the
        // connection's window runs dry and the last answer never comes.
        String origin = serve(request -> CompletableFuture.completedFuture(Response.streamed(200, new ChunkSource() {
            private int sent;

            @Override
            public ByteBuffer next() {
                return sent++ == 8 ? null : ByteBuffer.wrap(new byte[256 * 1024]);
            }

            @Override
            public void close() {
            }
        })));
        for (int i = 0; i < 20; i++) {
            PeerStreamedAnswer answer = await(transport.open(request(origin, "GET", "/large", new byte[0])));
            try (InputStream body = answer.body()) {
                assertThat(body.read(), is(0));
                Thread.sleep(150); // the peer fills the stream's window meanwhile
            }
        }
        PeerStreamedAnswer last = await(transport.open(request(origin, "GET", "/large", new byte[0])));
        try (InputStream body = last.body()) {
            assertThat(body.readAllBytes().length, is(8 * 256 * 1024));
        }
        assertThat(transport.stats().orElseThrow().connectionsOpened(), is(1L));
    }

    @Test
    void aStreamedAnswerThatStallsMidBodyFailsTheReadInsteadOfHanging() throws Exception {
        String origin = serve(request -> CompletableFuture.completedFuture(Response.streamed(200, new ChunkSource() {
            private boolean sent;

            @Override
            public ByteBuffer next() throws IOException {
                if (!sent) {
                    sent = true;
                    return ByteBuffer.wrap(new byte[] {1, 2, 3});
                }
                try {
                    release.await(); // stalls until the test ends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            }

            @Override
            public void close() {
            }
        })));
        PeerRequest request = new PeerRequest(origin, "GET", "/stall", Map.of(), new byte[0], Duration.ofMillis(500));
        PeerStreamedAnswer answer = await(transport.open(request));
        try (InputStream body = answer.body()) {
            byte[] first = new byte[3];
            assertThat(body.readNBytes(first, 0, 3), is(3));
            IOException e = assertThrows(IOException.class, body::read);
            assertThat(e, instanceOf(HttpTimeoutException.class));
        }
    }

    @Test
    void aRequestAfterThePeerRestartedOpensANewConnection() throws Exception {
        HttpHandler handler = request -> CompletableFuture.completedFuture(Response.of(200, new byte[] {5}));
        HttpServer first = HttpServer.start(config(0), handler);
        int port = first.port();
        String origin = "http://127.0.0.1:" + port;
        assertThat(await(transport.send(request(origin, "GET", "/", new byte[0]))).body(), equalTo(new byte[] {5}));
        first.shutdown(Duration.ofMillis(200));
        HttpServer second = HttpServer.start(config(port), handler);
        resources.add(second);
        PeerAnswer answer = null;
        // The first request after the restart may still find the old connection closing.
        for (int attempt = 0; attempt < 20 && answer == null; attempt++) {
            try {
                answer = transport.send(request(origin, "GET", "/", new byte[0])).get(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause(), instanceOf(IOException.class));
            }
        }
        assertThat(answer.body(), equalTo(new byte[] {5}));
        assertThat(transport.stats().orElseThrow().connectionsOpened(), greaterThanOrEqualTo(2L));
    }

    @Test
    void aMalformedOriginFailsTheRequest() {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> transport.send(request("http://127.0.0.1:1/path", "GET", "/", new byte[0])).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause().getMessage(), containsString("not a peer origin"));
    }

    @Test
    void requestsAfterCloseFail() throws Exception {
        String origin = serve(request -> CompletableFuture.completedFuture(Response.of(204)));
        transport.close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> transport.send(request(origin, "GET", "/", new byte[0])).get(WAIT_SECONDS, TimeUnit.SECONDS));
        assertThat(e.getCause(), instanceOf(IOException.class));
    }

    private static ServerConfig config(int port) {
        return ServerConfig.builder().host("127.0.0.1").port(port).eventLoops(1).handlerThreads(4).build();
    }

    private String serve(HttpHandler handler) throws IOException {
        HttpServer server = HttpServer.start(config(0), handler);
        resources.add(server);
        return "http://127.0.0.1:" + server.port();
    }

    private static PeerRequest request(String origin, String method, String target, byte[] body) {
        return new PeerRequest(origin, method, target, Map.of("X-Test", "1"), body, Duration.ofSeconds(10));
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
