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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Differential interop with curl as the reference client: the same resources fetched from nghttpd
 * (h2 over TLS by ALPN, h2c by prior knowledge) and from Jetty 12 over HTTP/1.1, once by curl and
 * once by ringkv's client, must give the same status, the same protocol version and the same body
 * bytes (1 MiB ones included); a 1 MiB POST is echoed back identically to both. Everything on
 * 127.0.0.1. Skipped with a message when curl (with HTTP/2) is absent; the nghttpd cases also when
 * nghttpd is absent ({@code src/test/resources/interop/install-nghttpd.sh}).
 */
@Timeout(300)
class CurlDifferentialTest {
    private static final int MIB = 1024 * 1024;
    private static final String HELLO = "served by nghttpd\n";

    /** A server and the protocol both clients speak to it. */
    enum Target {
        NGHTTPD_H2_TLS(Curl.Protocol.H2_ALPN, HttpClient.Version.HTTP_2),
        NGHTTPD_H2C(Curl.Protocol.H2C_PRIOR_KNOWLEDGE, HttpClient.Version.HTTP_2),
        JETTY_HTTP_1_1(Curl.Protocol.HTTP_1_1, HttpClient.Version.HTTP_1_1);

        final Curl.Protocol curlProtocol;
        final HttpClient.Version version;

        Target(Curl.Protocol curlProtocol, HttpClient.Version version) {
            this.curlProtocol = curlProtocol;
            this.version = version;
        }
    }

    @TempDir
    static Path work;
    static Curl curl;
    static Path upload;
    static NghttpdServer nghttpdTls;
    static NghttpdServer nghttpdH2c;
    static JettyTestServer jetty;
    static final ClientsUnderTest clients = new ClientsUnderTest();
    static HttpClient tlsClient;
    static HttpClient h2cClient;
    static HttpClient http1Client;

    @BeforeAll
    static void start() throws Exception {
        Optional<Curl> found = Curl.find(work);
        assumeTrue(found.isPresent(), "curl with HTTP/2 support not found on PATH: install curl (Debian package "
                + "curl, built with nghttp2) to run the curl differential tests");
        curl = found.get();
        Path keyStore = TestCertificates.serverKeyStore(work);
        SSLContext trusting = TestCertificates.trusting(keyStore);
        Path htdocs = Files.createDirectories(work.resolve("htdocs"));
        Files.writeString(htdocs.resolve("hello.txt"), HELLO);
        Files.write(htdocs.resolve("mib.bin"), Bodies.pattern(MIB));
        Files.write(htdocs.resolve("empty.bin"), new byte[0]);
        // Not the served pattern: an upload echoed as a download of mib.bin would not pass.
        byte[] uploaded = Bodies.pattern(MIB + 13);
        upload = Files.write(work.resolve("upload.bin"), java.util.Arrays.copyOfRange(uploaded, 13, uploaded.length));
        jetty = new JettyTestServer();
        if (NghttpdServer.binary().isPresent()) {
            nghttpdTls = new NghttpdServer(htdocs, NghttpdServer.Pem.export(keyStore, work), work);
            nghttpdH2c = new NghttpdServer(htdocs, null, work);
        }
        tlsClient = keep(RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(trusting).build());
        h2cClient = keep(RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_2).http2PriorKnowledge(true).build());
        http1Client = keep(RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
    }

    private static HttpClient keep(HttpClient client) {
        clients.add(client);
        return client;
    }

    @AfterAll
    static void stop() throws Exception {
        clients.close();
        for (NghttpdServer server : new NghttpdServer[] {nghttpdTls, nghttpdH2c}) {
            if (server != null) {
                server.close();
            }
        }
        if (jetty != null) {
            jetty.close();
        }
    }

    static Stream<Arguments> resources() {
        List<Arguments> cases = new ArrayList<>();
        for (Target nghttpd : List.of(Target.NGHTTPD_H2_TLS, Target.NGHTTPD_H2C)) {
            for (String path : List.of("/hello.txt", "/mib.bin", "/empty.bin", "/missing.txt")) {
                cases.add(Arguments.of(nghttpd, path));
            }
        }
        for (String path : List.of("/bytes?n=18", "/bytes?n=" + MIB, "/chunked?n=" + MIB, "/status?code=404",
                "/status?code=204")) {
            cases.add(Arguments.of(Target.JETTY_HTTP_1_1, path));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} GET {1}")
    @MethodSource("resources")
    void getsWhatCurlGets(Target target, String path) throws Exception {
        URI uri = URI.create(base(target) + path);
        Curl.Result reference = curl.fetch(uri, target.curlProtocol, null);
        HttpResponse<byte[]> ours = client(target).send(HttpRequest.newBuilder(uri).build(), BodyHandlers.ofByteArray());
        assertThat("status", ours.statusCode(), is(reference.status()));
        assertThat("protocol", ours.version(), is(reference.version()));
        assertThat("protocol asked for", ours.version(), is(target.version));
        assertThat("body bytes", ours.body(), is(reference.body()));
        if (path.contains("mib.bin") || path.endsWith("n=" + MIB)) {
            assertThat("the 1 MiB body itself", ours.body(), is(Bodies.pattern(MIB)));
        } else if (path.equals("/hello.txt")) {
            assertThat(new String(ours.body(), StandardCharsets.UTF_8), is(HELLO));
        }
    }

    @ParameterizedTest(name = "{0} POST 1 MiB")
    @EnumSource(Target.class)
    void uploadsAreEchoedAsForCurl(Target target) throws Exception {
        URI uri = URI.create(base(target) + "/echo");
        Curl.Result reference = curl.fetch(uri, target.curlProtocol, upload);
        HttpResponse<byte[]> ours = client(target).send(HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/octet-stream")
                .POST(BodyPublishers.ofFile(upload)).build(), BodyHandlers.ofByteArray());
        byte[] sent = Files.readAllBytes(upload);
        assertThat("status", ours.statusCode(), is(reference.status()));
        assertThat(ours.statusCode(), is(200));
        assertThat("protocol", ours.version(), is(reference.version()));
        assertThat("protocol asked for", ours.version(), is(target.version));
        assertThat("curl's echo", reference.body(), is(sent));
        assertThat("our echo", ours.body(), is(sent));
    }

    private static String base(Target target) {
        return switch (target) {
            case NGHTTPD_H2_TLS -> "https://localhost:" + nghttpd(nghttpdTls).port();
            case NGHTTPD_H2C -> "http://127.0.0.1:" + nghttpd(nghttpdH2c).port();
            case JETTY_HTTP_1_1 -> jetty.base();
        };
    }

    private static NghttpdServer nghttpd(NghttpdServer server) {
        assumeTrue(server != null, NghttpdServer.SKIP_MESSAGE);
        return server;
    }

    private static HttpClient client(Target target) {
        return switch (target) {
            case NGHTTPD_H2_TLS -> tlsClient;
            case NGHTTPD_H2C -> h2cClient;
            case JETTY_HTTP_1_1 -> http1Client;
        };
    }
}
