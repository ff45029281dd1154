package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interop: ringkv's client against nghttpd (the nghttp2 project's HTTP/2 server), h2 over TLS by
 * ALPN and h2c by prior knowledge. Skipped, with a message, when {@code nghttpd} is not on the
 * PATH; {@code src/test/resources/interop/install-nghttpd.sh} installs it (Debian package
 * nghttp2-server).
 */
@Timeout(120)
class NghttpdInteropTest {
    private static final String FILE_TEXT = "served by nghttpd\n";

    @TempDir
    static Path work;
    static Path keyStore;
    static SSLContext trusting;
    static NghttpdServer.Pem pem;

    private NghttpdServer nghttpd;
    private int port;
    private final List<HttpClient> clients = new ArrayList<>();

    @BeforeAll
    static void prepare() throws Exception {
        assumeTrue(NghttpdServer.binary().isPresent(), NghttpdServer.SKIP_MESSAGE);
        keyStore = TestCertificates.serverKeyStore(work);
        trusting = TestCertificates.trusting(keyStore);
        pem = NghttpdServer.Pem.export(keyStore, work);
        Files.writeString(Files.createDirectories(work.resolve("htdocs")).resolve("hello.txt"), FILE_TEXT);
    }

    @AfterEach
    void stop() throws Exception {
        for (HttpClient client : clients) {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        if (nghttpd != null) {
            nghttpd.close();
        }
    }

    @Test
    void getsAFileOverH2WithTls() throws Exception {
        start(true);
        HttpResponse<String> response = client(true).send(HttpRequest.newBuilder(
                URI.create("https://localhost:" + port + "/hello.txt")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), is(FILE_TEXT));
    }

    @Test
    void getsAFileOverH2cWithPriorKnowledge() throws Exception {
        start(false);
        HttpResponse<String> response = client(false).send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/hello.txt")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), is(FILE_TEXT));
    }

    @Test
    void uploadsAMegabyteAndReadsItBackOverTls() throws Exception {
        start(true);
        byte[] body = Bodies.pattern(1024 * 1024);
        HttpResponse<byte[]> response = client(true).send(HttpRequest.newBuilder(
                URI.create("https://localhost:" + port + "/echo")).POST(BodyPublishers.ofByteArray(body)).build(),
                BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is(body));
    }

    @Test
    void runsManyStreamsOnOneH2cConnection() throws Exception {
        start(false);
        HttpClient client = client(false);
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            futures.add(client.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/hello.txt")).build(), BodyHandlers.ofString()));
        }
        for (var future : futures) {
            assertThat(future.get(60, TimeUnit.SECONDS).body(), is(FILE_TEXT));
        }
    }

    private HttpClient client(boolean tls) {
        RingHttpClient.Builder builder = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_2);
        HttpClient client = tls ? builder.sslContext(trusting).build() : builder.http2PriorKnowledge(true).build();
        clients.add(client);
        return client;
    }

    private void start(boolean tls) throws IOException {
        nghttpd = new NghttpdServer(work.resolve("htdocs"), tls ? pem : null, work);
        port = nghttpd.port();
    }
}
