package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How ringkv's client spreads HTTP/2 streams over connections when the server limits concurrent
 * streams (Jetty with SETTINGS_MAX_CONCURRENT_STREAMS = 10), observed from the server side.
 */
@Timeout(120)
class RingHttp2ConnectionTest {
    private static final int STREAMS_MAX = 10;
    private JettyTestServer server;
    private final List<HttpClient> clients = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (HttpClient client : clients) {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        if (server != null) {
            server.close();
        }
    }

    private HttpClient client(int connectionsPerHost) {
        HttpClient client = RingHttpClient.newBuilder().http2PriorKnowledge(true)
                .connectionsPerHost(connectionsPerHost).version(HttpClient.Version.HTTP_2).build();
        clients.add(client);
        return client;
    }

    private URI uri(String pathAndQuery) {
        return URI.create(server.base() + pathAndQuery);
    }

    @Test
    void opensASecondConnectionWhenTheServerStreamLimitIsReached() throws Exception {
        server = JettyTestServer.h2c(STREAMS_MAX);
        HttpClient client = client(8);
        for (int i = 0; i < STREAMS_MAX + 5; i++) {
            client.sendAsync(HttpRequest.newBuilder(uri("/stall")).build(), BodyHandlers.ofString());
        }
        // 15 requests in the handler at once cannot fit in one connection's 10 streams.
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> server.stalledCount() == STREAMS_MAX + 5);
        assertThat(server.openConnections(), is(2));
    }

    @Test
    void queuesRequestsBeyondTheStreamLimitWhenNoMoreConnectionsAreAllowed() throws Exception {
        server = JettyTestServer.h2c(STREAMS_MAX);
        HttpClient client = client(1);
        List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            futures.add(client.sendAsync(HttpRequest.newBuilder(uri("/bytes?n=" + i)).build(),
                    BodyHandlers.ofByteArray()));
        }
        for (int i = 0; i < 200; i++) {
            HttpResponse<byte[]> response = futures.get(i).get(60, TimeUnit.SECONDS);
            assertThat(response.version(), is(HttpClient.Version.HTTP_2));
            assertThat(response.body(), equalTo(Bodies.pattern(i)));
        }
        assertThat(server.openConnections(), is(1));
    }

    @Test
    void multiplexesConcurrentRequestsOnOneConnection() throws Exception {
        server = JettyTestServer.h2c(JettyTestServer.H2_STREAMS_MAX_DEFAULT);
        HttpClient client = client(8);
        for (int i = 0; i < 50; i++) {
            client.sendAsync(HttpRequest.newBuilder(uri("/stall")).build(), BodyHandlers.ofString());
        }
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> server.stalledCount() == 50);
        assertThat(server.openConnections(), is(1));
    }
}
