package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectionLimitTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void stop() throws Exception {
        fixture.closeAll();
    }

    @Test
    void connectionsOverTheLimitAreClosedAtOnceAndFreedSlotsAreReused() throws Exception {
        HttpServer server = fixture.start(ServerFixture.config().connectionsMax(2).build(),
                request -> CompletableFuture.completedFuture(Response.of(200)));
        RawClient first = fixture.client(server);
        RawClient second = fixture.client(server);
        assertThat(first.send(RawClient.get("/")).read().status(), is(200));
        assertThat(second.send(RawClient.get("/")).read().status(), is(200));

        RawClient third = fixture.client(server);
        assertThat(third.closedByServer(), is(true));
        assertThat(server.openConnections(), is(2));

        first.close();
        Poll.until("the slot is free", () -> server.openConnections() == 1);
        RawClient fourth = fixture.client(server);
        assertThat(fourth.send(RawClient.get("/")).read().status(), is(200));
    }
}
