package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.ClientsUnderTest;
import io.ringkv.http.client.JettyTestServer;
import io.ringkv.http.client.RingHttpClient;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A route's connection state (HTTP/1.1 pool, HTTP/2 connection lists) lives only while the route
 * has a connection or a waiting request, so a client that talks to many hosts does not keep
 * state for every host it ever reached. Real client, real Jetty server on 127.0.0.1.
 */
@Timeout(120)
class RouteStateTest {
    private JettyTestServer server;
    private final ClientsUnderTest clients = new ClientsUnderTest();

    @BeforeEach
    void start() throws Exception {
        server = JettyTestServer.h2c(100);
    }

    @AfterEach
    void stop() throws Exception {
        clients.close();
        server.close();
    }

    private RingClient client(RingHttpClient.Builder builder) {
        return clients.add((RingClient) builder.build());
    }

    private static HttpRequest get(String base) {
        return HttpRequest.newBuilder(URI.create(base + "/bytes?n=3")).build();
    }

    @Test
    void http1RouteStateGoesWithItsLastConnection() throws Exception {
        RingClient client = client(RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .idleTimeout(Duration.ofMillis(200)));
        String byName = "http://localhost:" + server.port();
        assertThat(client.send(get(server.base()), BodyHandlers.ofString()).statusCode(), is(200));
        assertThat(client.send(get(byName), BodyHandlers.ofString()).statusCode(), is(200));
        assertThat(client.routesHeld(), is(2));

        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> client.routesHeld() == 0);
        assertThat(client.send(get(server.base()), BodyHandlers.ofString()).body().length(), is(3));
        assertThat(client.routesHeld(), is(1));
    }

    @Test
    void http2RouteStateGoesWithItsLastConnection() throws Exception {
        RingClient client = client(RingHttpClient.newBuilder().http2PriorKnowledge(true));
        HttpResponse<String> response = client.send(get(server.base()), BodyHandlers.ofString());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(client.routesHeld(), is(1));

        server.closeConnections();
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> client.routesHeld() == 0);
        response = client.send(get(server.base()), BodyHandlers.ofString());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(client.routesHeld(), is(1));
    }

    @Test
    void unreachableRouteFailsItsWaitersAndLeavesNoState() throws Exception {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        for (boolean http2 : new boolean[] {false, true}) {
            RingClient client = client(RingHttpClient.newBuilder().connectionsPerHost(1).http2PriorKnowledge(http2)
                    .version(http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1));
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(client.sendAsync(get("http://127.0.0.1:" + port), BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> call : calls) {
                ExecutionException failure = assertThrows(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
                assertThat(failure.getCause(), instanceOf(ConnectException.class));
            }
            Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> client.routesHeld() == 0);
        }
    }

    /**
     * Connections expire about as fast as requests take them, so route state is retired and made
     * anew while other threads acquire: every request must still get an answer.
     */
    @Test
    void requestsRacingTheRetirementOfTheirRouteAllComplete() throws Exception {
        RingClient client = client(RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectionsPerHost(2).idleTimeout(Duration.ofMillis(1)));
        ExecutorService callers = Executors.newFixedThreadPool(3);
        try {
            List<Future<Integer>> answered = new ArrayList<>();
            for (int thread = 0; thread < 3; thread++) {
                answered.add(callers.submit(() -> {
                    int ok = 0;
                    for (int i = 0; i < 150; i++) {
                        if (client.send(get(server.base()), BodyHandlers.ofString()).body().length() == 3) {
                            ok++;
                        }
                    }
                    return ok;
                }));
            }
            for (Future<Integer> thread : answered) {
                assertThat(thread.get(90, TimeUnit.SECONDS), is(150));
            }
        } finally {
            callers.shutdownNow();
        }
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> client.routesHeld() == 0);
    }

    @Test
    void http1OnlyOriginsAreRememberedUpToTheBound() {
        VersionedCodec codec = new VersionedCodec(null, null, false, "", null);
        for (int i = 0; i < VersionedCodec.HTTP1_ORIGINS_MAX + 100; i++) {
            codec.http1Only(Route.of(URI.create("https://host" + i + ".test/"), (InetSocketAddress) null));
        }
        assertThat(codec.http1OriginsHeld(), is(VersionedCodec.HTTP1_ORIGINS_MAX));
    }
}
