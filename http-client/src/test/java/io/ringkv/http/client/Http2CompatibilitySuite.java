package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP/2 half of the compatibility suite: cleartext HTTP/2 against Jetty 12 (HTTP/1.1 and
 * h2c on one port). How each client reaches HTTP/2 is the subclass's business: the JDK's by
 * {@code Upgrade: h2c} on its first request (it has no prior knowledge mode), ours by the same
 * upgrade or by prior knowledge. Tests state only what all must do alike; the first request of
 * most tests is a bodiless GET, which is the one that upgrades.
 */
@Timeout(120)
abstract class Http2CompatibilitySuite {
    static final int MEGABYTE = 1024 * 1024;
    /** SETTINGS_MAX_FRAME_SIZE's initial value (RFC 9113): the most one DATA frame carries by default. */
    private static final int ONE_DATA_FRAME = 16_384;

    JettyTestServer server;
    final ClientsUnderTest clients = new ClientsUnderTest();

    /**
     * Whether requests beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait for a stream (or
     * a second connection). Ours does; the JDK client (25) fails them with
     * {@code IOException("too many concurrent streams")}.
     */
    abstract boolean queuesBeyondTheStreamLimit();

    /** A builder configured so that {@code http://} requests with version HTTP_2 use HTTP/2. */
    abstract HttpClient.Builder newBuilder();

    /** Whether the client reaches h2c by {@code Upgrade: h2c} (true) or by prior knowledge. */
    abstract boolean upgradesFromHttp1();

    /**
     * Bodies of more than one DATA frame over a connection Jetty 12.1 upgraded to h2c now and then
     * fail with the JDK's client in a full module run: it reads a frame header out of body bytes
     * right after the 101 ("Frame type(186) length(6126747) exceeds MAX_FRAME_SIZE" with 1 MiB,
     * "Frame type(130) length(2442339)" with 100,000 bytes in a fresh-clone run). It never happened
     * in isolation; for the JDK's client those cases are covered over TLS (the TLS suites) instead.
     * Ours failed there too until its SETTINGS ACK could no longer overtake its connection
     * preface (Jetty then sent GOAWAY "invalid_preface"), so our upgrade variant runs them.
     */
    void skipLargeBodiesOverAnUpgrade(int size) {
        assumeFalse(upgradesFromHttp1() && size > ONE_DATA_FRAME && skipsLargeBodiesOverAnUpgrade(),
                "a body of more than one DATA frame over an h2c upgrade with the JDK's client: unreliable there "
                        + "(see the method's javadoc)");
    }

    /** Whether the client under test skips bodies of more than one DATA frame over an h2c upgrade; only the JDK's does. */
    boolean skipsLargeBodiesOverAnUpgrade() {
        return true;
    }

    @BeforeEach
    void startServer() throws Exception {
        server = JettyTestServer.h2c(JettyTestServer.H2_STREAMS_MAX_DEFAULT);
    }

    @AfterEach
    void stopEverything() throws Exception {
        clients.close();
        server.close();
    }

    HttpClient client() {
        HttpClient client = newBuilder().version(HttpClient.Version.HTTP_2).build();
        clients.add(client);
        return client;
    }

    URI uri(String pathAndQuery) {
        return URI.create(server.base() + pathAndQuery);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 1000, MEGABYTE})
    void getsAFixedLengthBodyOverHttp2(int size) throws Exception {
        skipLargeBodiesOverAnUpgrade(size);
        HttpResponse<byte[]> response = client().send(
                HttpRequest.newBuilder(uri("/bytes?n=" + size)).build(), BodyHandlers.ofByteArray());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), equalTo(Bodies.pattern(size)));
        assertThat(response.headers().firstValue("content-length").orElseThrow(), is(Integer.toString(size)));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 100_000, MEGABYTE})
    void getsABodyOfUnknownLengthOverHttp2(int size) throws Exception {
        skipLargeBodiesOverAnUpgrade(size);
        HttpResponse<byte[]> response = client().send(
                HttpRequest.newBuilder(uri("/chunked?n=" + size)).build(), BodyHandlers.ofByteArray());
        assertThat(response.body(), equalTo(Bodies.pattern(size)));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5, MEGABYTE})
    void postsAFixedLengthBodyAndReadsItBack(int size) throws Exception {
        skipLargeBodiesOverAnUpgrade(size);
        HttpClient client = client();
        client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(), BodyHandlers.ofByteArray()); // settles on h2
        byte[] data = Bodies.pattern(size);
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(uri("/echo"))
                .POST(BodyPublishers.ofByteArray(data)).build(), BodyHandlers.ofByteArray());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), equalTo(data));
        assertThat(response.headers().firstValue("X-Method").orElseThrow(), is("POST"));
        // Neither client sends content-length: 0 for an empty body over HTTP/2.
        assertThat(response.headers().firstValue("X-Request-Content-Length").orElseThrow(),
                is(size == 0 ? "none" : Integer.toString(size)));
    }

    @ParameterizedTest
    @ValueSource(ints = {5, MEGABYTE})
    void postsAnUncopiedArrayAndReadsItBack(int size) throws Exception {
        skipLargeBodiesOverAnUpgrade(size);
        HttpClient client = client();
        client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(), BodyHandlers.ofByteArray()); // settles on h2
        byte[] data = Bodies.pattern(size);
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(uri("/echo"))
                .POST(RingBodyPublishers.ofByteArrayNoCopy(data)).build(), BodyHandlers.ofByteArray());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), equalTo(data));
        assertThat(response.headers().firstValue("X-Request-Content-Length").orElseThrow(), is(Integer.toString(size)));
    }

    @ParameterizedTest
    @ValueSource(ints = {5, MEGABYTE})
    void putsABodyOfUnknownLength(int size) throws Exception {
        skipLargeBodiesOverAnUpgrade(size);
        HttpClient client = client();
        client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(), BodyHandlers.ofByteArray());
        byte[] data = Bodies.pattern(size);
        HttpRequest.BodyPublisher unknownLength = BodyPublishers.fromPublisher(BodyPublishers.ofByteArray(data));
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(uri("/echo"))
                .PUT(unknownLength).build(), BodyHandlers.ofByteArray());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), equalTo(data));
        assertThat(response.headers().firstValue("X-Request-Transfer-Encoding").orElseThrow(), is("none"));
    }

    @Test
    void laterRequestsShareTheFirstRequestsConnection() throws Exception {
        HttpClient client = client();
        HttpResponse<byte[]> first = client.send(HttpRequest.newBuilder(uri("/echo")).build(), BodyHandlers.ofByteArray());
        assertThat(first.version(), is(HttpClient.Version.HTTP_2));
        String port = first.headers().firstValue("X-Client-Port").orElseThrow();
        List<CompletableFuture<HttpResponse<byte[]>>> later = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            later.add(client.sendAsync(HttpRequest.newBuilder(uri("/echo")).build(), BodyHandlers.ofByteArray()));
        }
        for (CompletableFuture<HttpResponse<byte[]>> response : later) {
            assertThat(response.join().version(), is(HttpClient.Version.HTTP_2));
            assertThat(response.join().headers().firstValue("X-Client-Port").orElseThrow(), is(port));
        }
        assertThat(server.openConnections(), is(1));
    }

    @Test
    void headAnd204HaveNoBody() throws Exception {
        HttpClient client = client();
        HttpResponse<byte[]> head = client.send(HttpRequest.newBuilder(uri("/bytes?n=500")).HEAD().build(),
                BodyHandlers.ofByteArray());
        assertThat(head.body().length, is(0));
        HttpResponse<String> noContent = client.send(HttpRequest.newBuilder(uri("/status?code=204")).build(),
                BodyHandlers.ofString());
        assertThat(noContent.statusCode(), is(204));
        assertThat(noContent.body(), is(""));
    }

    @Test
    void fiveHundredConcurrentRequestsOnOneClient() throws Exception {
        HttpClient client = client();
        client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(), BodyHandlers.ofByteArray());
        List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            futures.add(client.sendAsync(HttpRequest.newBuilder(uri("/bytes?n=" + (i % 50))).build(),
                    BodyHandlers.ofByteArray()));
        }
        int refused = 0;
        for (int i = 0; i < 500; i++) {
            try {
                assertThat(futures.get(i).join().body(), equalTo(Bodies.pattern(i % 50)));
            } catch (CompletionException e) {
                assertThat(e.getCause(), instanceOf(IOException.class));
                refused++;
            }
        }
        if (queuesBeyondTheStreamLimit()) {
            assertThat("every request succeeds", refused, is(0));
        }
    }

    @Test
    void requestTimeoutIsHttpTimeoutExceptionAndTheConnectionLivesOn() throws Exception {
        HttpClient client = client();
        client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(), BodyHandlers.ofByteArray());
        HttpRequest stall = HttpRequest.newBuilder(uri("/stall")).timeout(Duration.ofMillis(300)).build();
        CompletionException error = assertThrows(CompletionException.class,
                () -> client.sendAsync(stall, BodyHandlers.ofString()).join());
        assertThat(error.getCause(), instanceOf(HttpTimeoutException.class));
        HttpResponse<byte[]> after = client.send(HttpRequest.newBuilder(uri("/bytes?n=10")).build(),
                BodyHandlers.ofByteArray());
        assertThat(after.version(), is(HttpClient.Version.HTTP_2));
        assertThat(after.body(), equalTo(Bodies.pattern(10)));
    }

    @Test
    void streamResetByTheServerIsIoException() throws Exception {
        HttpClient client = client();
        client.send(HttpRequest.newBuilder(uri("/bytes?n=1")).build(), BodyHandlers.ofByteArray());
        assertThrows(IOException.class, () -> client.send(HttpRequest.newBuilder(uri("/reset")).build(),
                BodyHandlers.ofByteArray()));
        assertThat(client.send(HttpRequest.newBuilder(uri("/bytes?n=7")).build(), BodyHandlers.ofByteArray()).body(),
                equalTo(Bodies.pattern(7)));
    }
}
