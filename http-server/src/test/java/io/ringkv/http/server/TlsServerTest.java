package io.ringkv.http.server;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.RingHttpClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server over TLS: ALPN picks h2 or HTTP/1.1 for the JDK's client, ringkv's, curl, nghttp and
 * h2load; the version and cipher policy; and what a bad client gets: plain HTTP on the TLS port,
 * a stalled handshake, too many handshakes at once, a renegotiation. Each bad connection is closed
 * and the server goes on serving.
 */
@Timeout(120)
class TlsServerTest {
    private final ServerFixture fixture = new ServerFixture();
    private final List<HttpClient> clients = new java.util.ArrayList<>();

    /** Answers with the protocol the request arrived over, so each test sees what ALPN chose. */
    private static final HttpHandler ECHO_PROTOCOL = request -> CompletableFuture.completedFuture(
            Response.text(200, request.protocol() + " " + request.path()));

    @AfterEach
    void tearDown() throws Exception {
        for (HttpClient client : clients) {
            client.close();
        }
        fixture.closeAll();
    }

    private HttpServer start(ServerTls tls) throws IOException {
        return fixture.start(ServerFixture.config().tls(tls).build(), ECHO_PROTOCOL);
    }

    private HttpServer start() throws IOException {
        return start(TestTls.serverTls());
    }

    private HttpClient jdkClient(HttpClient.Version version) {
        HttpClient client = HttpClient.newBuilder().sslContext(TestTls.clientContext()).version(version)
                .connectTimeout(Duration.ofSeconds(10)).build();
        clients.add(client);
        return client;
    }

    private static HttpResponse<String> get(HttpClient client, HttpServer server, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void jdkClientNegotiatesHttp2ByAlpn() throws Exception {
        HttpServer server = start();
        HttpResponse<String> response = get(jdkClient(HttpClient.Version.HTTP_2), server, "/a");
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), is("HTTP_2 /a\n"));
    }

    @Test
    void jdkClientForcedToHttp11GetsHttp11OverTls() throws Exception {
        HttpServer server = start();
        HttpResponse<String> response = get(jdkClient(HttpClient.Version.HTTP_1_1), server, "/b");
        assertThat(response.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(response.body(), is("HTTP_1_1 /b\n"));
    }

    @Test
    void serverOfferingOnlyHttp11AnswersAnHttp2ClientOverHttp11() throws Exception {
        HttpServer server = start(TestTls.serverTls().withApplicationProtocols(List.of(ServerTls.ALPN_HTTP_1_1)));
        HttpResponse<String> response = get(jdkClient(HttpClient.Version.HTTP_2), server, "/c");
        assertThat(response.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(response.body(), is("HTTP_1_1 /c\n"));
    }

    @Test
    void ringClientNegotiatesHttp2ByAlpn() throws Exception {
        HttpServer server = start();
        HttpClient client = RingHttpClient.newBuilder().sslContext(TestTls.clientContext())
                .version(HttpClient.Version.HTTP_2).build();
        clients.add(client);
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = get(client, server, "/ring" + i);
            assertThat(response.version(), is(HttpClient.Version.HTTP_2));
            assertThat(response.body(), is("HTTP_2 /ring" + i + "\n"));
        }
    }

    @Test
    void clientWithoutAlpnGetsHttp11() throws Exception {
        HttpServer server = start();
        try (RawClient client = new RawClient(tlsSocket(server, null, null, null))) {
            RawClient.Reply reply = client.send(RawClient.get("/no-alpn")).read();
            assertThat(reply.status(), is(200));
            assertThat(reply.text(), is("HTTP_1_1 /no-alpn\n"));
        }
    }

    @Test
    void h2cUpgradeIsIgnoredOverTls() throws Exception {
        HttpServer server = start();
        try (RawClient client = new RawClient(tlsSocket(server, ServerTls.ALPN_HTTP_1_1, null, null))) {
            RawClient.Reply reply = client.send("GET /up HTTP/1.1\r\nHost: test\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n").read();
            assertThat(reply.status(), is(200));
            assertThat(reply.text(), is("HTTP_1_1 /up\n"));
        }
    }

    @Test
    void tls12WithEcdheAndAeadIsAccepted() throws Exception {
        HttpServer server = start();
        try (SSLSocket socket = tlsSocket(server, ServerTls.ALPN_H2, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")) {
            socket.startHandshake();
            assertThat(socket.getSession().getProtocol(), is("TLSv1.2"));
            assertThat(socket.getApplicationProtocol(), is(ServerTls.ALPN_H2));
        }
    }

    /** RFC 9113 §9.2.2 lists CBC suites as unfit for HTTP/2; the server offers none of them. */
    @Test
    void tls12WithCbcSuiteIsRefused() throws Exception {
        HttpServer server = start();
        try (SSLSocket socket = tlsSocket(server, ServerTls.ALPN_H2, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256")) {
            // The server's handshake_failure alert, or its reset when the alert is not read first.
            assertThrows(IOException.class, socket::startHandshake);
        }
        assertThat(get(jdkClient(HttpClient.Version.HTTP_2), server, "/after").body(), is("HTTP_2 /after\n"));
    }

    @Test
    void renegotiationIsRefused() throws Exception {
        HttpServer server = start();
        SSLSocket socket = tlsSocket(server, ServerTls.ALPN_HTTP_1_1, "TLSv1.2", null);
        try (RawClient client = new RawClient(socket)) {
            assertThat(client.send(RawClient.get("/first")).read().status(), is(200));
            // A second handshake on a TLS 1.2 connection is the client asking to renegotiate.
            assertThrows(IOException.class, () -> {
                socket.startHandshake();
                client.send(RawClient.get("/second"));
                RawClient.Reply reply = client.read();
                throw new AssertionError("the renegotiated connection still served: " + reply.status());
            });
        }
        assertThat(get(jdkClient(HttpClient.Version.HTTP_2), server, "/after").body(), is("HTTP_2 /after\n"));
    }

    @Test
    void plainHttpOnTheTlsPortClosesThatConnectionOnly() throws Exception {
        HttpServer server = start();
        HttpClient client = jdkClient(HttpClient.Version.HTTP_2);
        assertThat(get(client, server, "/before").body(), is("HTTP_2 /before\n"));
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            plain.setSoTimeout(RawClient.READ_TIMEOUT_MILLIS);
            plain.getOutputStream().write(RawClient.get("/plain").getBytes(StandardCharsets.US_ASCII));
            assertClosedByServer(plain);
        }
        Poll.until("the failed handshake is counted", () -> server.tlsHandshakesFailed() >= 1);
        assertThat(get(client, server, "/after").body(), is("HTTP_2 /after\n"));
    }

    @Test
    void garbageOnTheTlsPortClosesThatConnectionOnly() throws Exception {
        HttpServer server = start();
        try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            plain.setSoTimeout(RawClient.READ_TIMEOUT_MILLIS);
            byte[] garbage = new byte[4096];
            new java.util.Random(16).nextBytes(garbage);
            garbage[0] = 0x16; // a handshake record header, so the engine reads on into the garbage
            garbage[1] = 0x03;
            garbage[2] = 0x01;
            plain.getOutputStream().write(garbage);
            assertClosedByServer(plain);
        }
        assertThat(get(jdkClient(HttpClient.Version.HTTP_2), server, "/after").body(), is("HTTP_2 /after\n"));
    }

    /** The slow-handshake attack: a client connects, sends half a ClientHello, and waits. */
    @Test
    void stalledHandshakeIsClosedAfterTheHandshakeTimeout() throws Exception {
        HttpServer server = start(TestTls.serverTls().withHandshakeTimeout(Duration.ofMillis(300)));
        try (Socket stalled = new Socket(InetAddress.getLoopbackAddress(), server.port());
             Socket silent = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            stalled.setSoTimeout(RawClient.READ_TIMEOUT_MILLIS);
            silent.setSoTimeout(RawClient.READ_TIMEOUT_MILLIS);
            // A record header promising 512 bytes of ClientHello, and 4 of them.
            stalled.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc});
            assertClosedByServer(stalled);
            assertClosedByServer(silent);
        }
        Poll.until("both handshakes are counted as failed", () -> server.tlsHandshakesFailed() >= 2);
        assertThat(get(jdkClient(HttpClient.Version.HTTP_2), server, "/after").body(), is("HTTP_2 /after\n"));
    }

    @Test
    void handshakesBeyondTheBoundAreRefusedAtOnce() throws Exception {
        HttpServer server = start(TestTls.serverTls().withHandshakesMax(1).withHandshakeTimeout(Duration.ofMinutes(5)));
        Socket holder = new Socket(InetAddress.getLoopbackAddress(), server.port()); // takes the one slot, says nothing
        try (Socket refused = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            refused.setSoTimeout(RawClient.READ_TIMEOUT_MILLIS);
            assertClosedByServer(refused);
            assertThat(server.tlsHandshakesRefused(), greaterThanOrEqualTo(1L));
        } finally {
            holder.close();
        }
        // The slot is free once the server has seen the holder go.
        HttpClient client = jdkClient(HttpClient.Version.HTTP_2);
        Poll.until("a handshake succeeds again", () -> {
            try {
                return get(client, server, "/after").body().equals("HTTP_2 /after\n");
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void curlGetsHttp2OverTls() throws Exception {
        HttpServer server = start();
        ExternalTool.Run run = ExternalTool.run("curl", "-sS", "--max-time", "20", "--http2", "--cacert",
                TestTls.certificateFile().toString(), "-w", "\n%{http_version}", "https://127.0.0.1:" + server.port() + "/curl");
        assertThat(run.output(), run.exitCode(), is(0));
        assertThat(run.output(), is("HTTP_2 /curl\n\n2"));
    }

    @Test
    void curlGetsHttp11OverTlsWhenAsked() throws Exception {
        HttpServer server = start();
        ExternalTool.Run run = ExternalTool.run("curl", "-sS", "--max-time", "20", "--http1.1", "--cacert",
                TestTls.certificateFile().toString(), "-w", "\n%{http_version}", "https://localhost:" + server.port() + "/curl");
        assertThat(run.output(), run.exitCode(), is(0));
        assertThat(run.output(), is("HTTP_1_1 /curl\n\n1.1"));
    }

    @Test
    void nghttpCompletesRequestsOverTls() throws Exception {
        HttpServer server = start();
        String base = "https://127.0.0.1:" + server.port();
        ExternalTool.Run run = ExternalTool.run("nghttp", "-t", "20", "-v", base + "/one", base + "/two");
        assertThat(run.output(), run.exitCode(), is(0));
        assertThat(run.output(), containsString("The negotiated protocol: h2"));
        assertThat(run.output(), containsString("HTTP_2 /one"));
        assertThat(run.output(), containsString("HTTP_2 /two"));
    }

    @Test
    void h2loadCompletesRequestsOverTls() throws Exception {
        HttpServer server = start();
        ExternalTool.Run run = ExternalTool.run("h2load", "-n", "200", "-c", "2", "-m", "8",
                "https://127.0.0.1:" + server.port() + "/load");
        assertThat(run.output(), run.exitCode(), is(0));
        assertThat(run.output(), containsString("Application protocol: h2"));
        assertThat(run.output(), containsString("200 succeeded, 0 failed, 0 errored"));
    }

    /**
     * A TLS socket trusting the test certificate; null arguments leave the JDK's defaults (no
     * ALPN offer when {@code alpn} is null).
     */
    private static SSLSocket tlsSocket(HttpServer server, String alpn, String version, String suite) throws IOException {
        SSLSocket socket = (SSLSocket) TestTls.clientContext().getSocketFactory().createSocket("localhost", server.port());
        socket.setSoTimeout(RawClient.READ_TIMEOUT_MILLIS);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        if (alpn != null) {
            parameters.setApplicationProtocols(new String[] {alpn});
        }
        if (version != null) {
            parameters.setProtocols(new String[] {version});
        }
        if (suite != null) {
            parameters.setCipherSuites(new String[] {suite});
        }
        socket.setSSLParameters(parameters);
        return socket;
    }

    /** The server closed the connection: end of stream or a reset; never a read timeout. */
    private static void assertClosedByServer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        try {
            byte[] buffer = new byte[4096];
            while (in.read(buffer) >= 0) {
                // a TLS alert may come first; the close follows
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server left the connection open", e);
        } catch (SocketException e) {
            // reset by the server: closed too
        }
    }
}
