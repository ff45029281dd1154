package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Until TLS is wired in, an {@code https} request must fail before any byte leaves in cleartext.
 * A plain listening socket stands in for the server: the only connection it ever accepts must be
 * the marker connection the test opens itself after the request failed.
 */
class RingClientSchemeTest {
    private static final String REFUSAL = "https is not supported yet by RingHttpClient";
    private final HttpClient client = RingHttpClient.newBuilder().followRedirects(HttpClient.Redirect.ALWAYS).build();

    @AfterEach
    void stop() throws InterruptedException {
        client.shutdownNow();
        assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
    }

    @Test
    void httpsRequestFailsWithoutConnecting() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            URI target = URI.create("https://127.0.0.1:" + listener.getLocalPort() + "/secret");
            IOException error = assertThrows(IOException.class,
                    () -> client.send(HttpRequest.newBuilder(target).build(), BodyHandlers.ofString()));
            assertThat(error.getMessage(), is(REFUSAL));
            assertOnlyMarkerConnects(listener);
        }
    }

    @Test
    void httpsRequestFailsTheAsyncFutureWithIoException() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            URI target = URI.create("https://127.0.0.1:" + listener.getLocalPort() + "/secret");
            CompletionException error = assertThrows(CompletionException.class,
                    () -> client.sendAsync(HttpRequest.newBuilder(target).build(), BodyHandlers.ofString()).join());
            assertThat(error.getCause(), instanceOf(IOException.class));
            assertThat(error.getCause().getMessage(), is(REFUSAL));
            assertOnlyMarkerConnects(listener);
        }
    }

    @Test
    void redirectToHttpsIsRefusedWithoutConnecting() throws Exception {
        try (JettyTestServer server = new JettyTestServer();
                ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String httpsTarget = "https://127.0.0.1:" + listener.getLocalPort() + "/secret";
            URI start = URI.create(server.base() + "/redirect?code=302&to=" + httpsTarget);
            IOException error = assertThrows(IOException.class,
                    () -> client.send(HttpRequest.newBuilder(start).build(), BodyHandlers.ofString()));
            assertThat(error.getMessage(), is(REFUSAL));
            assertOnlyMarkerConnects(listener);
        }
    }

    /** Connects a marker socket, then checks that the first connection the listener accepts is it. */
    private static void assertOnlyMarkerConnects(ServerSocket listener) throws IOException {
        try (Socket marker = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort())) {
            listener.setSoTimeout(10_000);
            try (Socket accepted = listener.accept()) {
                assertThat("first connection is the test's marker", accepted.getPort(), is(marker.getLocalPort()));
            }
        }
    }
}
