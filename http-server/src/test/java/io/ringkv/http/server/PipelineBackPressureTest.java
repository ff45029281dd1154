package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client that pipelines requests and never reads its answers must not make the server queue
 * responses without bound: once a connection's unsent bytes pass the high-water mark, the server
 * stops reading (and so parsing and handling) that connection's requests. Other connections are
 * served meanwhile.
 */
@Timeout(60)
class PipelineBackPressureTest {
    private static final int RESPONSE_BYTES = 64 * 1024;
    private static final int REQUESTS = 4_000; // 250 MiB of answers if all were handled

    private final ServerFixture fixture = new ServerFixture();
    private final AtomicInteger handled = new AtomicInteger();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    @Test
    void aClientThatNeverReadsStopsBeingReadWhileItsAnswersPileUp() throws Exception {
        byte[] answer = new byte[RESPONSE_BYTES];
        HttpServer server = fixture.start(request -> {
            if (request.path().equals("/big")) {
                handled.incrementAndGet();
            }
            return CompletableFuture.completedFuture(Response.of(200, answer));
        });
        byte[] request = RawClient.get("/big").getBytes(StandardCharsets.US_ASCII);
        try (Socket greedy = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            greedy.setReceiveBufferSize(4096);
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = greedy.getOutputStream();
                    for (int i = 0; i < REQUESTS; i++) {
                        out.write(request);
                    }
                } catch (Exception stoppedByClose) {
                    // The socket is closed at the end of the test while this may still block.
                }
            }, "pipelining-writer");
            writer.setDaemon(true);
            writer.start();

            // Wait until the count stops moving: the server stopped reading the greedy connection.
            int last = -1;
            while (handled.get() != last) {
                last = handled.get();
                Thread.sleep(1_000);
            }
            assertThat("requests handled for a client that reads nothing", handled.get(), lessThan(REQUESTS / 4));

            try (RawClient other = fixture.client(server)) {
                assertThat(other.send(RawClient.get("/small")).read().status(), is(200));
            }
        }
    }
}
