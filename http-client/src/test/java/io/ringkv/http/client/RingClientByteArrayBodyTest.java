package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code BodyHandlers.ofByteArray()}: ours copies the body into the result array from the moment
 * its head arrives, on the event loop, without waiting for the client's executor to hand the head
 * to the application. Observed from the server: with the executor held, the server still gets to
 * write a body far larger than what a client that waits for its subscriber would take in (the
 * body pipe's bound plus the socket buffers over HTTP/1.1, the stream window over HTTP/2).
 */
class RingClientByteArrayBodyTest {
    /** Well above the pipe's 1 MiB bound plus loopback socket buffers (a few MiB each way). */
    private static final int H1_BODY_BYTES = 24 * 1024 * 1024;
    /** Far beyond the stream window the HTTP/2 client below advertises. */
    private static final int H2_BODY_BYTES = 4 * 1024 * 1024;
    private static final int H2_STREAM_WINDOW_BYTES = 65_535;

    private JettyTestServer server;
    private HttpClient client;
    private final HeldExecutor executor = new HeldExecutor();

    @AfterEach
    void stop() throws Exception {
        executor.release();
        if (client != null) {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        executor.pool.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void http1BodyIsReadInFullWhileTheExecutorHoldsTheHead() throws Exception {
        server = new JettyTestServer();
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor).build();
        assertBodyReadWithExecutorHeld(H1_BODY_BYTES);
    }

    @Test
    void http2BodyIsCreditedOnArrivalWhileTheExecutorHoldsTheHead() throws Exception {
        server = JettyTestServer.h2c(JettyTestServer.H2_STREAMS_MAX_DEFAULT);
        client = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_2).http2PriorKnowledge(true)
                .http2StreamWindowBytes(H2_STREAM_WINDOW_BYTES).executor(executor).build();
        assertBodyReadWithExecutorHeld(H2_BODY_BYTES);
    }

    private void assertBodyReadWithExecutorHeld(int size) throws Exception {
        // One answer with the executor running opens the connection, so the held request goes
        // out on a pooled one.
        assertThat(send(1).join().body().length, is(1));
        // Jetty counts an answer when its write callback runs, which may be after the client
        // has read it: wait for the count, so that the next one is the held answer's.
        Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> server.bytesAnswersWritten() == 1);

        executor.hold();
        CompletableFuture<HttpResponse<byte[]>> held = send(size);
        Awaitility.await("the server writes the whole body while the client's executor is held")
                .atMost(60, TimeUnit.SECONDS).until(() -> server.bytesAnswersWritten() == 2);
        assertThat("the application has not been handed the response yet", held.isDone(), is(false));

        executor.release();
        byte[] body = held.get(60, TimeUnit.SECONDS).body();
        assertThat(body.length, is(size));
        assertThat(java.util.Arrays.equals(body, Bodies.pattern(size)), is(true));
    }

    private CompletableFuture<HttpResponse<byte[]>> send(int size) {
        return client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/bytes?n=" + size)).build(),
                BodyHandlers.ofByteArray());
    }

    /** Runs tasks on a small pool, or keeps them, in order, while held. */
    private static final class HeldExecutor implements Executor {
        final ExecutorService pool = Executors.newFixedThreadPool(2);
        private final Queue<Runnable> kept = new ArrayDeque<>();
        private boolean held;

        @Override
        public void execute(Runnable task) {
            synchronized (this) {
                if (held) {
                    kept.add(task);
                    return;
                }
            }
            pool.execute(task);
        }

        synchronized void hold() {
            held = true;
        }

        void release() {
            Queue<Runnable> due;
            synchronized (this) {
                held = false;
                due = new ArrayDeque<>(kept);
                kept.clear();
            }
            due.forEach(pool::execute);
        }
    }
}
