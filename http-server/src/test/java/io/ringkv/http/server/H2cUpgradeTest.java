package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 by {@code Upgrade: h2c} (RFC 7540 §3.2) on the HTTP/1.1 port: the JDK's client and curl
 * switch and then multiplex; offers the server must not take are served over HTTP/1.1.
 */
class H2cUpgradeTest {
    private final ServerFixture fixture = new ServerFixture();

    @AfterEach
    void tearDown() throws Exception {
        fixture.closeAll();
    }

    @Test
    void theJdkClientUpgradesAndThenSendsConcurrentRequestsAsStreams() throws Exception {
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                .connectTimeout(Duration.ofSeconds(10)).build()) {
            URI base = URI.create("http://127.0.0.1:" + server.port());
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(base.resolve("/first")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, first.statusCode());
            assertEquals(HttpClient.Version.HTTP_2, first.version());
            assertEquals("GET /first 0\n", first.body());
            assertEquals("yes", first.headers().firstValue("x-echo").orElseThrow());

            List<CompletableFuture<HttpResponse<String>>> more = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                more.add(client.sendAsync(HttpRequest.newBuilder(base.resolve("/more/" + i))
                        .POST(HttpRequest.BodyPublishers.ofString("x".repeat(i))).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < 20; i++) {
                HttpResponse<String> response = more.get(i).get(30, TimeUnit.SECONDS);
                assertEquals(HttpClient.Version.HTTP_2, response.version());
                assertEquals("POST /more/" + i + " " + i + "\n", response.body());
            }
        }
    }

    @Test
    void curlUpgradesAGetAndKeepsHttp11ForABody() throws Exception {
        assumeTrue(new File("/usr/bin/curl").canExecute(), "curl is not installed: skipped");
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        String url = "http://127.0.0.1:" + server.port();
        assertEquals("GET /by-curl 0\n2", curl("--http2", url + "/by-curl"));
        // A request with a body is served without switching: the body would have to be read first.
        assertEquals("POST /with-body 5\n1.1", curl("--http2", "--data", "hello", url + "/with-body"));
    }

    @Test
    void aMalformedOrDuplicatedSettingsFieldIsServedOverHttp11() throws Exception {
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        String[] offers = {
            "Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: !!not-base64!!\r\n",
            "Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABk\r\nHTTP2-Settings: AAMAAABk\r\n",
            // 5 octets: not a whole number of 6-octet settings
            "Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAAA\r\n",
            // SETTINGS_ENABLE_PUSH = 2 is not a legal value
            "Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAIAAAAC\r\n",
            // HTTP2-Settings not named in Connection
            "Upgrade: h2c\r\nConnection: Upgrade\r\nHTTP2-Settings: AAMAAABk\r\n",
        };
        for (String offer : offers) {
            String answer = exchange(server.port(), "GET /plain HTTP/1.1\r\nHost: x\r\n" + offer + "Connection: close\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 200 "), "served over HTTP/1.1 for " + offer + ": " + answer);
            assertTrue(answer.endsWith("GET /plain 0\n"), answer);
        }
    }

    @Test
    void aValidOfferIsAnswered101ThenSettings() throws Exception {
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /switch HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "HTTP2-Settings: AAMAAABk\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String expected = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
            byte[] head = in.readNBytes(expected.length());
            assertEquals(expected, new String(head, StandardCharsets.US_ASCII));
            byte[] frameHeader = in.readNBytes(9);
            assertEquals(9, frameHeader.length);
            assertEquals(0x4, frameHeader[3], "the server's SETTINGS frame follows the 101");
            assertEquals(0, frameHeader[4] & 0x1, "not an ACK");
        }
    }

    private static String curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "-w", "%{http_version}"));
        command.addAll(List.of(args));
        Process curl = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(curl.waitFor(30, TimeUnit.SECONDS), "curl finished");
        return new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static String exchange(int port, String request) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }
}
