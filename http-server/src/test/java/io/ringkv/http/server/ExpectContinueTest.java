package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RFC 9110 §10.1.1: 100 Continue only for an admitted request; a refused one gets the final status instead. */
class ExpectContinueTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    @Test
    void admittedRequestGets100ContinueThenTheFinalResponse() throws Exception {
        RawClient client = fixture.client(fixture.start(request -> CompletableFuture.completedFuture(
                Response.text(201, new String(request.body(), StandardCharsets.UTF_8)))));
        client.send("PUT /v HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
        RawClient.Reply interim = client.read();
        assertThat(interim.status(), is(100));
        client.send("data");
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(201));
        assertThat(reply.text(), is("data\n"));
    }

    @Test
    void requestOverBudgetGets503AndNo100Continue() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HttpServer server = fixture.start(ServerFixture.config().inFlightMax(1).build(), request -> {
            release.await(20, TimeUnit.SECONDS);
            return CompletableFuture.completedFuture(Response.of(200));
        });
        RawClient busy = fixture.client(server);
        busy.send(RawClient.get("/hold"));
        Poll.until("the first request is in flight", () -> server.inFlight() == 1);

        RawClient refused = fixture.client(server);
        refused.send("PUT /v HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
        RawClient.Reply reply = refused.read();
        assertThat(reply.status(), is(503));
        assertThat(reply.header("Connection"), is("close"));
        assertThat(refused.closedByServer(), is(true));
        release.countDown();
        assertThat(busy.read().status(), is(200));
    }
}
