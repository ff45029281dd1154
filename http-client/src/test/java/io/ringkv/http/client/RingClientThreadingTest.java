package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.not;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Threading promises of ringkv's client that the JDK's does not make. */
class RingClientThreadingTest {
    private JettyTestServer server;
    private HttpClient client;

    @BeforeEach
    void start() throws Exception {
        server = new JettyTestServer();
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterEach
    void stop() throws Exception {
        client.shutdownNow();
        assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        server.close();
    }

    @Test
    void threadCountDoesNotGrowWithRequestsInFlight() {
        List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            futures.add(client.sendAsync(request("/bytes?n=" + (i % 100)), BodyHandlers.ofByteArray()));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).join();
        long clientThreads = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("ringkv-http-client-")).count();
        int workersMax = Math.max(2, Runtime.getRuntime().availableProcessors());
        // Other clients in this JVM may be winding down; bound by a generous multiple of one client.
        assertThat(clientThreads, lessThanOrEqualTo((long) 4 * (workersMax + 1)));
    }

    @Test
    void bodyCallbacksNeverRunOnTheEventLoop() throws Exception {
        ThreadRecordingSubscriber subscriber = new ThreadRecordingSubscriber();
        HttpResponse<Void> response = client.sendAsync(request("/chunked?n=300000"),
                BodyHandlers.fromSubscriber(subscriber)).get();
        assertThat(response.statusCode(), is(200));
        assertThat(subscriber.threads, everyItem(containsString("-worker-")));
    }

    /**
     * A host name is resolved on the resolver executor when one is named, not on the calling
     * thread: a client whose executor runs tasks inline may be called from an event loop.
     */
    @Test
    void hostNamesAreResolvedOnTheResolverExecutorWhenOneIsNamed() throws Exception {
        List<String> resolvedOn = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.ExecutorService resolver = java.util.concurrent.Executors.newSingleThreadExecutor(
                task -> new Thread(task, "test-resolver"));
        HttpClient inline = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(Runnable::run)
                .resolverExecutor(task -> resolver.execute(() -> {
                    resolvedOn.add(Thread.currentThread().getName());
                    task.run();
                })).build();
        try {
            URI byName = URI.create(server.base().replace("127.0.0.1", "localhost") + "/bytes?n=10");
            HttpResponse<byte[]> response = inline.send(HttpRequest.newBuilder(byName).build(), BodyHandlers.ofByteArray());
            assertThat(response.statusCode(), is(200));
            assertThat(resolvedOn, is(List.of("test-resolver")));
        } finally {
            inline.shutdownNow();
            resolver.shutdownNow();
        }
    }

    @Test
    void dependentStagesOfTheFutureRunOffTheEventLoop() throws Exception {
        String thread = client.sendAsync(request("/bytes?n=10"), BodyHandlers.ofByteArray())
                .thenApply(response -> Thread.currentThread().getName()).get();
        assertThat(thread, not(containsString("-loop")));
        assertThat(isLoopName(thread), is(false));
    }

    /**
     * With an executor that runs tasks inline, a request timeout that fires while a prior-knowledge
     * h2 connection still waits for the server's SETTINGS is reported as the timeout it is: the
     * exchange's abort, which reports back on the same thread, must not replace it.
     */
    @Test
    void aTimeoutWithAnInlineExecutorIsStillAnHttpTimeoutException() throws Exception {
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 8, java.net.InetAddress.getLoopbackAddress());
             HttpClient inline = RingHttpClient.newBuilder().http2PriorKnowledge(true).executor(Runnable::run)
                     .version(HttpClient.Version.HTTP_2).build()) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + silent.getLocalPort() + "/"))
                    .timeout(Duration.ofMillis(300)).build();
            java.util.concurrent.ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class,
                    () -> inline.sendAsync(request, BodyHandlers.discarding()).get(30, java.util.concurrent.TimeUnit.SECONDS));
            assertThat(failed.getCause().toString(), failed.getCause() instanceof java.net.http.HttpTimeoutException, is(true));
        }
    }

    @Test
    void synchronousSendRunsTheBodySubscriberOnTheCallingThread() throws Exception {
        ThreadRecordingSubscriber subscriber = new ThreadRecordingSubscriber();
        String caller = Thread.currentThread().getName();
        HttpResponse<Void> response = client.send(request("/chunked?n=300000"), BodyHandlers.fromSubscriber(subscriber));
        assertThat(response.statusCode(), is(200));
        assertThat(subscriber.threads, is(Set.of(caller)));
    }

    /** Parking only, a spin that always times out, and a long spin: the caller does the same work. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(longs = {0, 1, 1_000_000})
    void synchronousSendRunsTheBodySubscriberOnTheCallingThreadWhateverTheSpin(long spinNanos) throws Exception {
        HttpClient spinning = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .syncSendSpin(Duration.ofNanos(spinNanos)).build();
        try {
            String caller = Thread.currentThread().getName();
            for (int i = 0; i < 3; i++) {
                ThreadRecordingSubscriber subscriber = new ThreadRecordingSubscriber();
                HttpResponse<Void> response = spinning.send(request("/chunked?n=300000"),
                        BodyHandlers.fromSubscriber(subscriber));
                assertThat(response.statusCode(), is(200));
                assertThat(subscriber.bytes.get(), is(300_000L));
                assertThat(subscriber.threads, is(Set.of(caller)));
            }
        } finally {
            spinning.shutdownNow();
        }
    }

    @Test
    void synchronousSendWithAnExecutorOfItsOwnLeavesThatExecutorIdleForASmallBody() throws Exception {
        java.util.concurrent.atomic.AtomicInteger tasks = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        HttpClient counting = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(task -> {
                    tasks.incrementAndGet();
                    pool.execute(task);
                }).build();
        try {
            // The first request connects (name resolution runs on the executor); the next reuse it.
            counting.send(request("/bytes?n=10"), BodyHandlers.ofByteArray());
            int afterConnect = tasks.get();
            for (int i = 0; i < 20; i++) {
                assertThat(counting.send(request("/bytes?n=10"), BodyHandlers.ofByteArray()).body().length, is(10));
            }
            assertThat(tasks.get(), is(afterConnect));
        } finally {
            counting.shutdownNow();
            pool.shutdownNow();
        }
    }

    @Test
    void bodyThatOutlivesSynchronousSendKeepsFlowingOnTheExecutor() throws Exception {
        HttpResponse<java.io.InputStream> response = client.send(request("/chunked?n=2000000"),
                BodyHandlers.ofInputStream());
        try (java.io.InputStream in = response.body()) {
            assertThat(in.readAllBytes().length, is(2_000_000));
        }
    }

    private static boolean isLoopName(String name) {
        // Loops are named ringkv-http-client-N-I (no "worker" part).
        return name.startsWith("ringkv-http-client-") && !name.contains("-worker-");
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create(server.base() + path)).build();
    }

    /** Records the thread of every signal. */
    static final class ThreadRecordingSubscriber implements Flow.Subscriber<List<ByteBuffer>> {
        final Set<String> threads = ConcurrentHashMap.newKeySet();
        final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
        private Flow.Subscription subscription;

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            threads.add(Thread.currentThread().getName());
            this.subscription = subscription;
            subscription.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            threads.add(Thread.currentThread().getName());
            item.forEach(buffer -> bytes.addAndGet(buffer.remaining()));
            subscription.request(1);
        }

        @Override
        public void onError(Throwable throwable) {
            threads.add(Thread.currentThread().getName());
        }

        @Override
        public void onComplete() {
            threads.add(Thread.currentThread().getName());
        }
    }
}
