package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Graceful shutdown: stop accepting, finish in-flight work within the grace, close idle connections, cut off the rest. */
class ShutdownTest {
    private final ServerFixture fixture = new ServerFixture();
    private final CountDownLatch release = new CountDownLatch(1);
    /** Counted down once the /block handler runs. {@code inFlight() == 1} alone cannot tell: a
     * finished request keeps its permit until just after its response is flushed. */
    private final CountDownLatch blocking = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        fixture.closeAll();
    }

    private HttpServer start() throws IOException {
        return fixture.start(request -> {
            if (request.path().equals("/block")) {
                blocking.countDown();
                release.await(30, TimeUnit.SECONDS);
            }
            return CompletableFuture.completedFuture(Response.text(200, "finished"));
        });
    }

    private static boolean refusesConnections(int port) {
        try {
            new Socket(InetAddress.getLoopbackAddress(), port).close();
            return false;
        } catch (ConnectException refused) {
            return true;
        } catch (IOException other) {
            return false;
        }
    }

    @Test
    void finishesTheInFlightRequestRefusesNewConnectionsAndClosesIdleOnes() throws Exception {
        HttpServer server = start();
        RawClient idle = fixture.client(server);
        assertThat(idle.send(RawClient.get("/quick")).read().status(), is(200));
        RawClient busy = fixture.client(server);
        busy.send(RawClient.get("/block"));
        assertThat("the /block handler runs", blocking.await(20, TimeUnit.SECONDS), is(true));

        Thread stopper = Thread.ofPlatform().start(() -> server.shutdown(Duration.ofSeconds(20)));
        Poll.until("new connections are refused", () -> refusesConnections(server.port()));
        assertThat(idle.closedByServer(), is(true));

        release.countDown();
        RawClient.Reply reply = busy.read();
        assertThat(reply.status(), is(200));
        assertThat(reply.text(), is("finished\n"));
        assertThat(reply.header("Connection"), is("close"));
        assertThat(busy.closedByServer(), is(true));
        stopper.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(stopper.isAlive(), is(false));
        assertThat(server.openConnections(), is(0));
    }

    @Test
    void cutsOffRequestsThatOutliveTheGrace() throws Exception {
        HttpServer server = start();
        RawClient busy = fixture.client(server);
        busy.send(RawClient.get("/block"));
        assertThat("the /block handler runs", blocking.await(20, TimeUnit.SECONDS), is(true));

        server.shutdown(Duration.ofMillis(200)); // returns although the handler never finishes by itself
        assertThat(busy.closedByServer(), is(true));
        assertThat(refusesConnections(server.port()), is(true));
        assertThat(server.openConnections(), is(0));
    }
}
