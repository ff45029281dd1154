package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Request bodies cannot take the heap or hold a connection by trickling: buffers grow as bytes
 * arrive (not at the declared length), bodies being received count against a server-wide memory
 * budget (503 beyond it), and a body must keep a minimum data rate (408 below it).
 */
@Timeout(60)
class RequestBodyLimitsTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    private HttpServer start(ServerConfig.Builder config) throws Exception {
        return fixture.start(config.build(), request ->
                CompletableFuture.completedFuture(Response.text(200, "got " + request.body().length)));
    }

    private static String put(long contentLength) {
        return "PUT /upload HTTP/1.1\r\nHost: test\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }

    @Test
    void aBodyThatWouldPassTheMemoryBudgetGets503WhileSmallOnesAreServed() throws Exception {
        HttpServer server = start(ServerFixture.config().bodyMemoryMax(100 * 1024));
        try (RawClient big = fixture.client(server)) {
            big.send(put(1 << 20)); // declares 1 MiB: no longer allocated at once
            big.send(new byte[200 * 1024]); // the buffer has to grow past the budget
            RawClient.Reply reply = big.read();
            assertThat(reply.status(), is(503));
            assertThat(new String(reply.body(), StandardCharsets.UTF_8), containsString("memory budget"));
        }
        try (RawClient small = fixture.client(server)) {
            RawClient.Reply reply = small.send(put(10) + "0123456789").read();
            assertThat(reply.status(), is(200));
            assertThat(new String(reply.body(), StandardCharsets.UTF_8), is("got 10\n"));
        }
    }

    @Test
    void aBodyTrickledBelowTheMinimumRateGets408() throws Exception {
        HttpServer server = start(ServerFixture.config());
        try (RawClient slow = fixture.client(server)) {
            slow.send(put(100_000) + "x".repeat(100)); // then nothing: far below 1 KiB/s
            RawClient.Reply reply = slow.read(); // within one 10 s window, well before the 60 s idle timeout
            assertThat(reply.status(), is(408));
        }
    }

    /**
     * The rate check is for bodies still arriving: a request whose body has ended keeps no timer.
     * A check left scheduled for the window's 10 s holds its whole request (head, body, answer)
     * that long, so a node under PUT load kept every request of the last 10 s alive and spent a
     * quarter of its CPU copying them between GC generations.
     */
    @Test
    void aRequestWhoseBodyHasEndedLeavesNoTimerBehind() throws Exception {
        HttpServer server = start(ServerFixture.config().eventLoops(1));
        int requests = 300;
        try (RawClient client = fixture.client(server)) {
            for (int i = 0; i < requests; i++) {
                if (i % 2 == 0) { // the body in the same read as the head
                    client.send(put(10) + "0123456789");
                } else { // the body in a later read: the server answers 100 before the client sends it
                    client.send("PUT /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n");
                    assertThat(client.read().status(), is(100));
                    client.send("0123456789");
                }
                assertThat(client.read().text(), is("got 10\n"));
            }
            // The loop publishes its count at the end of each iteration; every request but the
            // last was parsed iterations ago. What stays is per connection (its read deadline).
            assertThat(server.timersPending(), is(lessThan(10)));
        }
    }
}
