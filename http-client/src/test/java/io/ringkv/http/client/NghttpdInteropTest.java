package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.awaitility.Awaitility;
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
    private static final long STOP_SECONDS_MAX = 10;

    @TempDir
    static Path work;
    static Path keyStore;
    static SSLContext trusting;
    static Path keyPem;
    static Path certPem;

    private Process nghttpd;
    private int port;
    private final List<HttpClient> clients = new ArrayList<>();

    @BeforeAll
    static void prepare() throws Exception {
        assumeTrue(nghttpdBinary().isPresent(),
                "nghttpd not found on PATH: install Debian package nghttp2-server "
                        + "(src/test/resources/interop/install-nghttpd.sh) to run the nghttpd interop tests");
        keyStore = TestCertificates.serverKeyStore(work);
        trusting = TestCertificates.trusting(keyStore);
        exportPem();
        Files.writeString(Files.createDirectories(work.resolve("htdocs")).resolve("hello.txt"), FILE_TEXT);
    }

    @AfterEach
    void stop() throws Exception {
        for (HttpClient client : clients) {
            client.shutdownNow();
            assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        if (nghttpd != null) {
            nghttpd.destroy();
            if (!nghttpd.waitFor(STOP_SECONDS_MAX, TimeUnit.SECONDS)) {
                nghttpd.destroyForcibly();
            }
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
        port = freePort();
        List<String> command = new ArrayList<>(List.of(nghttpdBinary().orElseThrow().toString(),
                "--address=127.0.0.1", "--htdocs=" + work.resolve("htdocs"), "--echo-upload"));
        if (tls) {
            command.addAll(List.of(Integer.toString(port), keyPem.toString(), certPem.toString()));
        } else {
            command.addAll(List.of("--no-tls", Integer.toString(port)));
        }
        nghttpd = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("nghttpd-" + port + ".log").toFile()).start();
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(this::accepting);
    }

    private boolean accepting() {
        if (!nghttpd.isAlive()) {
            throw new IllegalStateException("nghttpd exited with " + nghttpd.exitValue());
        }
        try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static Optional<Path> nghttpdBinary() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String directory : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(directory, "nghttpd");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** nghttpd (OpenSSL) wants PEM files: the key as PKCS#8, the certificate as X.509. */
    private static void exportPem() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        Key key = store.getKey("server", TestCertificates.PASSWORD.toCharArray());
        Certificate certificate = store.getCertificate("server");
        keyPem = Files.writeString(work.resolve("server.key"), pem("PRIVATE KEY", key.getEncoded()));
        certPem = Files.writeString(work.resolve("server.crt"), pem("CERTIFICATE", certificate.getEncoded()));
    }

    private static String pem(String type, byte[] der) {
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n";
    }
}
