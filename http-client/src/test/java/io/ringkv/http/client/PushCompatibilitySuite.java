package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse.PushPromiseHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/2 server push (RFC 9113 §8.4) against Jetty 12 over h2c, run with both clients: Jetty's
 * {@code /push?n=..} promises {@code /bytes?n=..} for each n and answers "main". Both clients must
 * call the push handler with the promised request, deliver accepted pushed responses to the
 * acceptor's future, and shrug off pushes nobody accepts.
 */
@Timeout(120)
abstract class PushCompatibilitySuite {
    static final String EXECUTOR_THREAD = "push-suite-executor-";

    JettyTestServer server;
    HttpClient client;
    ExecutorService executor;

    /** A builder configured so that {@code http://} requests with version HTTP_2 use HTTP/2. */
    abstract HttpClient.Builder newBuilder();

    /** Whether the client promises to call push handlers on its executor (ours does; the JDK may use its own threads). */
    abstract boolean callsPushHandlersOnTheExecutor();

    @BeforeEach
    void start() throws Exception {
        server = JettyTestServer.h2c(JettyTestServer.H2_STREAMS_MAX_DEFAULT);
        AtomicInteger count = new AtomicInteger();
        ThreadFactory named = task -> {
            Thread thread = new Thread(task, EXECUTOR_THREAD + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        executor = Executors.newFixedThreadPool(4, named);
        client = newBuilder().version(HttpClient.Version.HTTP_2).executor(executor).build();
        // Settles on HTTP/2 first, so that pushes come on a connection already upgraded: pushed bodies
        // right behind the 101 meet the JDK client's flaw that Http2CompatibilitySuite's
        // skipLargeBodiesOverAnUpgrade describes. The request has a push handler (nothing is pushed
        // for it) because the JDK client asks for push in its upgrade only then, and never gives a
        // request with a handler a connection without push: with a plain send, each test's push
        // request upgraded a second connection.
        client.sendAsync(HttpRequest.newBuilder(uri("/bytes?n=1")).build(), BodyHandlers.ofByteArray(),
                (initiating, promised, acceptor) -> { }).get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        client.shutdownNow();
        assertThat("client terminates", client.awaitTermination(Duration.ofSeconds(30)), is(true));
        executor.shutdownNow();
        server.close();
    }

    URI uri(String pathAndQuery) {
        return URI.create(server.base() + pathAndQuery);
    }

    @Test
    void acceptedPushesAreDeliveredToTheAcceptorsFutures() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri("/push?n=1000&n=100000")).build();
        List<HttpRequest> initiating = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        Map<URI, CompletableFuture<HttpResponse<byte[]>>> pushed = new ConcurrentHashMap<>();
        PushPromiseHandler<byte[]> handler = (initiatingRequest, promised, acceptor) -> {
            initiating.add(initiatingRequest);
            threads.add(Thread.currentThread().getName());
            pushed.put(promised.uri(), acceptor.apply(BodyHandlers.ofByteArray()));
        };
        HttpResponse<byte[]> main = client.sendAsync(request, BodyHandlers.ofByteArray(), handler)
                .get(30, TimeUnit.SECONDS);
        assertThat(new String(main.body()), is("main"));
        assertThat("the pushes came on the connection start() settled", server.openConnections(), is(1));
        assertThat(pushed.keySet(), containsInAnyOrder(uri("/bytes?n=1000"), uri("/bytes?n=100000")));
        assertThat(initiating, everyItem(equalTo(request)));
        for (int n : new int[] {1000, 100000}) {
            HttpResponse<byte[]> response = pushed.get(uri("/bytes?n=" + n)).get(30, TimeUnit.SECONDS);
            assertThat(response.statusCode(), is(200));
            assertThat(response.version(), is(HttpClient.Version.HTTP_2));
            assertThat(response.request().uri(), is(uri("/bytes?n=" + n)));
            assertThat(response.request().method(), is("GET"));
            assertThat(response.uri(), is(uri("/bytes?n=" + n)));
            assertThat(response.body(), equalTo(Bodies.pattern(n)));
        }
        if (callsPushHandlersOnTheExecutor()) {
            assertThat(threads, everyItem(startsWith(EXECUTOR_THREAD)));
        }
    }

    @Test
    void pushPromiseHandlerOfFillsTheMapBeforeTheMainResponseCompletes() throws Exception {
        ConcurrentHashMap<HttpRequest, CompletableFuture<HttpResponse<String>>> promises = new ConcurrentHashMap<>();
        PushPromiseHandler<String> handler = PushPromiseHandler.of(promised -> BodyHandlers.ofString(), promises);
        HttpResponse<String> main = client.sendAsync(HttpRequest.newBuilder(uri("/push?n=5")).build(),
                BodyHandlers.ofString(), handler).get(30, TimeUnit.SECONDS);
        assertThat(main.body(), is("main"));
        assertThat(promises.size(), is(1));
        Map.Entry<HttpRequest, CompletableFuture<HttpResponse<String>>> entry = promises.entrySet().iterator().next();
        assertThat(entry.getKey().uri(), is(uri("/bytes?n=5")));
        assertThat(entry.getValue().get(30, TimeUnit.SECONDS).body(), is(new String(Bodies.pattern(5))));
    }

    @Test
    void declinedPushesAndRequestsWithoutAHandlerAreUnharmed() throws Exception {
        List<URI> offered = new CopyOnWriteArrayList<>();
        PushPromiseHandler<String> declining = (initiatingRequest, promised, acceptor) -> offered.add(promised.uri());
        HttpResponse<String> declined = client.sendAsync(HttpRequest.newBuilder(uri("/push?n=70000")).build(),
                BodyHandlers.ofString(), declining).get(30, TimeUnit.SECONDS);
        assertThat(declined.body(), is("main"));
        assertThat(offered, is(List.of(uri("/bytes?n=70000"))));

        HttpResponse<String> unhandled = client.send(HttpRequest.newBuilder(uri("/push?n=70000")).build(),
                BodyHandlers.ofString());
        assertThat(unhandled.body(), is("main"));

        List<CompletableFuture<HttpResponse<byte[]>>> after = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            after.add(client.sendAsync(HttpRequest.newBuilder(uri("/bytes?n=" + (i * 1000))).build(),
                    BodyHandlers.ofByteArray()));
        }
        for (int i = 0; i < 10; i++) {
            assertThat(after.get(i).get(30, TimeUnit.SECONDS).body(), equalTo(Bodies.pattern(i * 1000)));
        }
    }

    @Test
    void aThrowingHandlerDeclinesThePush() throws Exception {
        List<URI> offered = new CopyOnWriteArrayList<>();
        PushPromiseHandler<String> throwing = (initiatingRequest, promised, acceptor) -> {
            offered.add(promised.uri());
            throw new IllegalStateException("handler fails on purpose");
        };
        HttpResponse<String> main = client.sendAsync(HttpRequest.newBuilder(uri("/push?n=3")).build(),
                BodyHandlers.ofString(), throwing).get(30, TimeUnit.SECONDS);
        assertThat(main.body(), is("main"));
        assertThat(offered, is(List.of(uri("/bytes?n=3"))));
        assertThat(client.send(HttpRequest.newBuilder(uri("/bytes?n=9")).build(), BodyHandlers.ofByteArray()).body(),
                equalTo(Bodies.pattern(9)));
    }

    @Test
    void promisedRequestCarriesMethodUriAndHeaders() throws Exception {
        List<HttpRequest> promisedRequests = new CopyOnWriteArrayList<>();
        PushPromiseHandler<String> recording = (initiatingRequest, promised, acceptor) -> promisedRequests.add(promised);
        client.sendAsync(HttpRequest.newBuilder(uri("/push?n=1")).build(), BodyHandlers.ofString(), recording)
                .get(30, TimeUnit.SECONDS);
        assertThat(promisedRequests.size(), is(1));
        HttpRequest promised = promisedRequests.get(0);
        assertThat(promised.method(), is("GET"));
        assertThat(promised.uri(), is(uri("/bytes?n=1")));
        assertThat(promised.bodyPublisher().isPresent(), is(false));
        // As the JDK client does, headers() shows the promise's pseudo-header fields too.
        assertThat(promised.headers().allValues(":method"), is(List.of("GET")));
        assertThat(promised.headers().allValues(":path"), is(List.of("/bytes?n=1")));
        assertThat(promised.headers().allValues(":scheme"), is(List.of("http")));
        assertThat(promised.headers().allValues(":authority"), is(List.of(uri("/").getAuthority())));
        assertThat(promised.timeout(), is(java.util.Optional.empty()));
    }
}
