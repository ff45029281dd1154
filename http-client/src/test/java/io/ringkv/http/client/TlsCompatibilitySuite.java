package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TLS half of the compatibility suite: HTTPS against Jetty 12 with a self-signed certificate
 * for {@code localhost} made in the test; HTTP/1.1 and h2 chosen by ALPN; the client trusts the
 * certificate through an SSLContext built here. Run with the JDK's client and with ours.
 */
@Timeout(120)
abstract class TlsCompatibilitySuite extends TlsClientSuiteFixture {
    static final int MEGABYTE = 1024 * 1024;



    abstract HttpClient.Builder newBuilder();

    HttpClient client(HttpClient.Version version, SSLContext context) {
        HttpClient client = newBuilder().sslContext(context).version(version).build();
        clients.add(client);
        return client;
    }

    URI localhost(String pathAndQuery) {
        return URI.create("https://localhost:" + server.port() + pathAndQuery);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, MEGABYTE})
    void getsOverHttp1WithTls(int size) throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        HttpResponse<byte[]> response = client(HttpClient.Version.HTTP_1_1, trusting).send(
                HttpRequest.newBuilder(localhost("/bytes?n=" + size)).build(), BodyHandlers.ofByteArray());
        assertThat(response.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(response.body(), equalTo(Bodies.pattern(size)));
        assertThat(response.sslSession().orElseThrow().getProtocol().startsWith("TLS"), is(true));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 5, MEGABYTE})
    void postsOverH2NegotiatedByAlpn(int size) throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        byte[] data = Bodies.pattern(size);
        HttpResponse<byte[]> response = client(HttpClient.Version.HTTP_2, trusting).send(
                HttpRequest.newBuilder(localhost("/echo")).POST(BodyPublishers.ofByteArray(data)).build(),
                BodyHandlers.ofByteArray());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), equalTo(data));
        assertThat(response.sslSession().orElseThrow().getProtocol().startsWith("TLS"), is(true));
    }

    @Test
    void getsAMegabyteOverH2() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        HttpResponse<byte[]> response = client(HttpClient.Version.HTTP_2, trusting).send(
                HttpRequest.newBuilder(localhost("/chunked?n=" + MEGABYTE)).build(), BodyHandlers.ofByteArray());
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), equalTo(Bodies.pattern(MEGABYTE)));
    }

    @Test
    void hundredConcurrentRequestsOverH2() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        HttpClient client = client(HttpClient.Version.HTTP_2, trusting);
        client.send(HttpRequest.newBuilder(localhost("/bytes?n=1")).build(), BodyHandlers.ofByteArray());
        List<CompletableFuture<HttpResponse<byte[]>>> futures = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            futures.add(client.sendAsync(HttpRequest.newBuilder(localhost("/bytes?n=" + i)).build(),
                    BodyHandlers.ofByteArray()));
        }
        for (int i = 0; i < 100; i++) {
            assertThat(futures.get(i).join().body(), equalTo(Bodies.pattern(i)));
        }
    }

    @Test
    void http2RequestToAnHttp1OnlyServerFallsBackToHttp1() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, false);
        HttpClient client = client(HttpClient.Version.HTTP_2, trusting);
        for (int i = 0; i < 2; i++) {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(localhost("/bytes?n=10")).build(),
                    BodyHandlers.ofByteArray());
            assertThat(response.version(), is(HttpClient.Version.HTTP_1_1));
            assertThat(response.body(), equalTo(Bodies.pattern(10)));
        }
    }

    /** The certificate names localhost only; 127.0.0.1 does not match it (RFC 9110 §4.3.4). */
    @Test
    void hostNameMismatchFailsTheHandshake() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        URI byAddress = URI.create("https://127.0.0.1:" + server.port() + "/bytes?n=1");
        assertThrows(SSLHandshakeException.class, () -> client(HttpClient.Version.HTTP_1_1, trusting)
                .send(HttpRequest.newBuilder(byAddress).build(), BodyHandlers.ofByteArray()));
    }

    @Test
    void untrustedCertificateFailsTheHandshake() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        assertThrows(SSLHandshakeException.class, () -> client(HttpClient.Version.HTTP_2, SSLContext.getDefault())
                .send(HttpRequest.newBuilder(localhost("/bytes?n=1")).build(), BodyHandlers.ofByteArray()));
    }
}
