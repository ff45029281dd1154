package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RingHttpClient#stats}: the connections a client holds open and the requests in flight on
 * them, against a real Jetty server over HTTP/1.1, h2c by prior knowledge and h2c by
 * {@code Upgrade}, checked against what the server sees.
 */
@Timeout(120)
class RingClientStatsTest {
    private static final int STREAMS_MAX = 10;
    private JettyTestServer server;
    private final ClientsUnderTest clients = new ClientsUnderTest();
    private final List<CompletableFuture<HttpResponse<String>>> stalled = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        stalled.forEach(future -> future.cancel(true));
        clients.close();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void http2ConnectionsAndTheirOpenStreams() throws Exception {
        server = JettyTestServer.h2c(STREAMS_MAX);
        HttpClient client = clients.add(RingHttpClient.newBuilder().http2PriorKnowledge(true).connectionsPerHost(8)
                .version(HttpClient.Version.HTTP_2).build());
        stall(client, STREAMS_MAX + 5);
        // 15 streams cannot fit in one connection's 10: the client opened a second one.
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> server.stalledCount() == STREAMS_MAX + 5);
        ClientStats stats = stats(client);
        assertThat(stats.routes(), is(List.of(route(HttpClient.Version.HTTP_2, 2, STREAMS_MAX + 5))));
        assertThat(stats.connectionsOpened(), is(2L));
        assertThat(stats.routes().getFirst().origin(), is("http://127.0.0.1:" + server.port()));

        // Cancelled requests reset their streams; the connections stay for later ones.
        stalled.forEach(future -> future.cancel(true));
        Awaitility.await().atMost(30, TimeUnit.SECONDS)
                .until(() -> stats(client).routes().equals(List.of(route(HttpClient.Version.HTTP_2, 2, 0))));

        server.closeConnections();
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> stats(client).routes().isEmpty());
        assertThat("a total, not what is open", stats(client).connectionsOpened(), is(2L));
    }

    @Test
    void http1ConnectionsCarryOneRequestEachAndIdleOnesCount() throws Exception {
        server = new JettyTestServer();
        HttpClient client = clients.add(RingHttpClient.newBuilder().connectionsPerHost(2)
                .version(HttpClient.Version.HTTP_1_1).build());
        stall(client, 3);
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> server.stalledCount() == 2);
        // The third request waits for a connection: in flight on none.
        assertThat(stats(client).routes(), is(List.of(route(HttpClient.Version.HTTP_1_1, 2, 2))));
        assertThat(stats(client).connectionsOpened(), is(2L));

        // The server drops both: the waiting request gets a new connection and stalls on it.
        server.closeConnections();
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> server.stalledCount() == 3
                && stats(client).routes().equals(List.of(route(HttpClient.Version.HTTP_1_1, 1, 1))));

        // Cancelling an HTTP/1.1 request closes its connection.
        stalled.forEach(future -> future.cancel(true));
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> stats(client).routes().isEmpty());

        HttpResponse<byte[]> done = client.send(HttpRequest.newBuilder(URI.create(server.base() + "/bytes?n=10")).build(),
                BodyHandlers.ofByteArray());
        assertThat(done.statusCode(), is(200));
        Awaitility.await().atMost(30, TimeUnit.SECONDS)
                .until(() -> stats(client).routes().equals(List.of(route(HttpClient.Version.HTTP_1_1, 1, 0))));
        assertThat(stats(client).connectionsOpened(), is(4L));
    }

    @Test
    void aConnectionUpgradedToH2cCountsOnceAsHttp2() throws Exception {
        server = JettyTestServer.h2c(STREAMS_MAX);
        HttpClient client = clients.add(RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build());
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(URI.create(server.base() + "/bytes?n=10")).build(),
                BodyHandlers.ofByteArray());
        assertThat("switched by Upgrade: h2c", response.version(), is(HttpClient.Version.HTTP_2));
        Awaitility.await().atMost(30, TimeUnit.SECONDS)
                .until(() -> stats(client).routes().equals(List.of(route(HttpClient.Version.HTTP_2, 1, 0))));
        assertThat(stats(client).connectionsOpened(), is(1L));
    }

    @Test
    void aNewClientHoldsNothingAndTheJdksHasNoStats() {
        HttpClient ours = clients.add(RingHttpClient.newHttpClient());
        assertThat(stats(ours).routes(), is(empty()));
        assertThat(stats(ours).connectionsOpened(), is(0L));
        HttpClient jdk = clients.add(HttpClient.newHttpClient());
        assertThat(RingHttpClient.stats(jdk).isPresent(), is(false));
    }

    private void stall(HttpClient client, int requests) {
        for (int i = 0; i < requests; i++) {
            stalled.add(client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/stall")).build(),
                    BodyHandlers.ofString()));
        }
    }

    private static ClientStats stats(HttpClient client) {
        return RingHttpClient.stats(client).orElseThrow();
    }

    private RouteStats route(HttpClient.Version version, int connections, int inFlight) {
        return new RouteStats("http", "127.0.0.1", server.port(), null, version, connections, inFlight);
    }
}
