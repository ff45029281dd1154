package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An {@code https} request never leaves in cleartext: against a plain socket that records what
 * arrives, the first bytes are a TLS handshake record (RFC 8446 §5.1, content type 22) and the
 * request line never appears; the send fails with an IOException once the socket closes.
 */
@Timeout(60)
class RingClientSchemeTest {
    /** RFC 8446 §5.1: ContentType handshake. */
    private static final int TLS_HANDSHAKE_RECORD = 22;
    /** Bytes recorded before the recorder hangs up: a TLS record header and some of a ClientHello. */
    private static final int RECORDED_BYTES_MAX = 64;
    private final HttpClient client = RingHttpClient.newBuilder().followRedirects(HttpClient.Redirect.ALWAYS).build();

    @AfterEach
    void stop() throws InterruptedException {
        client.shutdownNow();
        assertThat(client.awaitTermination(Duration.ofSeconds(30)), is(true));
    }

    @Test
    void httpsRequestStartsWithATlsHandshakeNotThePlainRequest() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> recorded = CompletableFuture.supplyAsync(() -> record(listener));
            URI target = URI.create("https://localhost:" + listener.getLocalPort() + "/secret");
            assertThrows(IOException.class,
                    () -> client.send(HttpRequest.newBuilder(target).build(), BodyHandlers.ofString()));
            assertTlsNotPlaintext(recorded.get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void redirectToHttpsStartsWithATlsHandshake() throws Exception {
        try (JettyTestServer server = new JettyTestServer();
                ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<byte[]> recorded = CompletableFuture.supplyAsync(() -> record(listener));
            String httpsTarget = "https://localhost:" + listener.getLocalPort() + "/secret";
            URI start = URI.create(server.base() + "/redirect?code=302&to=" + httpsTarget);
            assertThrows(IOException.class,
                    () -> client.send(HttpRequest.newBuilder(start).build(), BodyHandlers.ofString()));
            assertTlsNotPlaintext(recorded.get(30, TimeUnit.SECONDS));
        }
    }

    private static void assertTlsNotPlaintext(byte[] bytes) {
        assertThat("something arrived", bytes.length > 0, is(true));
        assertThat("a TLS handshake record", bytes[0] & 0xff, is(TLS_HANDSHAKE_RECORD));
        assertThat(new String(bytes, StandardCharsets.ISO_8859_1), not(containsString("/secret")));
    }

    /** Accepts one connection, keeps its first bytes, then closes it. */
    private static byte[] record(ServerSocket listener) {
        try (Socket socket = listener.accept(); InputStream in = socket.getInputStream()) {
            socket.setSoTimeout(30_000);
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            byte[] chunk = new byte[RECORDED_BYTES_MAX];
            while (seen.size() < RECORDED_BYTES_MAX) {
                int n = in.read(chunk, 0, RECORDED_BYTES_MAX - seen.size());
                if (n < 0) {
                    break;
                }
                seen.write(chunk, 0, n);
            }
            return seen.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
