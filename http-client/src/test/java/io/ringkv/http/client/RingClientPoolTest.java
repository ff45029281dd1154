package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Connection pool behaviour of ringkv's client, observed from the server side. */
class RingClientPoolTest {
    private JettyTestServer server;
    private final ClientsUnderTest clients = new ClientsUnderTest();

    @BeforeEach
    void start() throws Exception {
        server = new JettyTestServer();
    }

    @AfterEach
    void stop() throws Exception {
        clients.close();
        server.close();
    }

    private HttpClient client(RingHttpClient.Builder builder) {
        return clients.add(builder.version(HttpClient.Version.HTTP_1_1).build());
    }

    @Test
    void closesConnectionsIdleLongerThanTheIdleTimeout() throws Exception {
        HttpClient client = client(RingHttpClient.newBuilder().idleTimeout(Duration.ofMillis(200)));
        client.send(HttpRequest.newBuilder(URI.create(server.base() + "/bytes?n=1")).build(),
                BodyHandlers.ofByteArray());
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> server.openConnections() == 0);
    }

    @Test
    void opensNoMoreThanConnectionsPerHost() {
        HttpClient client = client(RingHttpClient.newBuilder().connectionsPerHost(2));
        List<CompletableFuture<?>> stalled = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            stalled.add(client.sendAsync(HttpRequest.newBuilder(URI.create(server.base() + "/stall")).build(),
                    BodyHandlers.ofString()));
        }
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> server.stalledCount() == 2);
        // The other three wait for a connection; none was opened for them.
        assertThat(server.openConnections(), is(2));
        stalled.forEach(future -> future.cancel(true));
    }
}
