package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Slow clients cannot hold a connection: header-read timeout, idle timeout, stalled body. */
class TimeoutTest {
    private static final Duration SHORT = Duration.ofMillis(200);
    private static final Duration LONG = Duration.ofSeconds(60);

    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    private HttpServer start(Duration idle, Duration header) throws IOException {
        return fixture.start(ServerFixture.config().idleTimeout(idle).headerReadTimeout(header).build(),
                request -> CompletableFuture.completedFuture(Response.of(200)));
    }

    @Test
    void clientTricklingARequestHeadIsCutOffWithA408() throws Exception {
        // The idle timeout is long and every byte is fresh activity: only the head deadline can fire.
        HttpServer server = start(LONG, SHORT);
        RawClient client = fixture.client(server);
        client.send("GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ");
        AtomicInteger trickled = new AtomicInteger();
        Thread trickler = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; i < 20_000; i++) {
                    client.send("a");
                    trickled.incrementAndGet();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // pacing the attack, not synchronising
                }
            } catch (IOException closedByServer) {
                // expected once the server gives up
            }
        });
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(408));
        assertThat(reply.header("Connection"), is("close"));
        assertThat(client.closedByServer(), is(true));
        trickler.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(trickler.isAlive(), is(false));
        Poll.until("the connection is released", () -> server.openConnections() == 0);
    }

    @Test
    void connectionThatNeverSendsARequestIsClosed() throws Exception {
        HttpServer server = start(LONG, SHORT);
        RawClient client = fixture.client(server);
        assertThat(client.closedByServer(), is(true));
        Poll.until("the connection is released", () -> server.openConnections() == 0);
    }

    @Test
    void idleKeptAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        HttpServer server = start(SHORT, LONG);
        RawClient client = fixture.client(server);
        assertThat(client.send(RawClient.get("/")).read().status(), is(200));
        assertThat(client.closedByServer(), is(true));
        Poll.until("the connection is released", () -> server.openConnections() == 0);
    }

    @Test
    void requestBodyThatStopsArrivingIsAnswered408AndClosed() throws Exception {
        HttpServer server = start(SHORT, LONG);
        RawClient client = fixture.client(server);
        client.send("PUT /v HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc");
        RawClient.Reply reply = client.read();
        assertThat(reply.status(), is(408));
        assertThat(client.closedByServer(), is(true));
        Poll.until("the permit is back", () -> server.inFlight() == 0 && server.openConnections() == 0);
    }
}
