package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Over the in-flight budget the server answers 503 at once, calls no handler, queues nothing; then recovers. */
class OverloadTest {
    private static final int BUDGET = 3;

    private final ServerFixture fixture = new ServerFixture();
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger handlerCalls = new AtomicInteger();

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        fixture.closeAll();
    }

    private HttpServer start() throws Exception {
        return fixture.start(ServerFixture.config().inFlightMax(BUDGET).handlerThreads(2).build(), request -> {
            handlerCalls.incrementAndGet();
            if (request.path().equals("/block")) {
                // Blocks a handler thread; with 2 threads and a budget of 3, the third waits in the executor queue.
                release.await(20, TimeUnit.SECONDS);
            }
            return CompletableFuture.completedFuture(Response.text(200, "done"));
        });
    }

    @Test
    void fullBudgetGives503sThenNormalServiceOnceReleased() throws Exception {
        HttpServer server = start();
        List<RawClient> blocked = new ArrayList<>();
        for (int i = 0; i < BUDGET; i++) {
            RawClient client = fixture.client(server);
            client.send(RawClient.get("/block"));
            blocked.add(client);
        }
        Poll.until("the budget is full", () -> server.inFlight() == BUDGET);
        // Both handler threads are blocked; the third admitted request waits in the executor queue.
        Poll.until("both handler threads are busy", () -> handlerCalls.get() == 2);
        int callsWhenFull = handlerCalls.get();

        RawClient refused = fixture.client(server);
        for (int i = 0; i < 5; i++) {
            RawClient.Reply reply = refused.send(RawClient.get("/fast")).read();
            assertThat(reply.status(), is(503));
            // No body was left unread, so the connection stays usable.
            assertThat(reply.header("Connection"), is(nullValue()));
        }
        RawClient withBody = fixture.client(server);
        RawClient.Reply bodyRefused = withBody.send("PUT /v HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc").read();
        assertThat(bodyRefused.status(), is(503));
        assertThat(bodyRefused.header("Connection"), is("close"));
        assertThat(handlerCalls.get(), is(callsWhenFull));

        release.countDown();
        for (RawClient client : blocked) {
            assertThat(client.read().status(), is(200));
        }
        Poll.until("the budget is free", () -> server.inFlight() == 0);
        assertThat(refused.send(RawClient.get("/fast")).read().status(), is(200));
        assertThat(fixture.client(server).send(RawClient.get("/fast")).read().status(), is(200));
    }
}
