package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.net.Authenticator;
import java.net.PasswordAuthentication;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proxies through the {@link ProxySelector}, for both clients, against Jetty 12 behind
 * {@link TestProxy}: http in absolute-form (RFC 9112 §3.2.2), https through a CONNECT tunnel
 * (RFC 9110 §9.3.6) with TLS end to end, and a 407 answered with the {@link Authenticator}.
 */
@Timeout(120)
abstract class ProxyCompatibilitySuite {
    static final String PROXY_USER = "proxy-user";
    static final String PROXY_PASSWORD = "proxy-secret";

    @TempDir
    static Path keys;
    static Path keyStore;
    static SSLContext trusting;

    JettyTestServer server;
    TestProxy proxy;
    final List<HttpClient> clients = new ArrayList<>();

    abstract HttpClient.Builder newBuilder();

    @BeforeAll
    static void makeCertificate() throws Exception {
        keyStore = TestCertificates.serverKeyStore(keys);
        trusting = TestCertificates.trusting(keyStore);
    }

    @AfterEach
    void stopEverything() throws Exception {
        for (HttpClient client : clients) {
            client.shutdownNow();
            assertThat("client terminates", client.awaitTermination(Duration.ofSeconds(30)), is(true));
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    HttpClient client(HttpClient.Builder builder) {
        HttpClient client = builder.proxy(ProxySelector.of(proxy.address())).build();
        clients.add(client);
        return client;
    }

    @Test
    void sendsHttpRequestsToTheProxyInAbsoluteForm() throws Exception {
        server = new JettyTestServer();
        proxy = new TestProxy();
        URI target = URI.create(server.base() + "/echo?q=1");
        HttpResponse<String> response = client(newBuilder().version(HttpClient.Version.HTTP_1_1)).send(
                HttpRequest.newBuilder(target).POST(BodyPublishers.ofString("via proxy")).build(),
                BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is("via proxy"));
        assertThat(proxy.requestLines(), contains("POST " + target + " HTTP/1.1"));
    }

    @Test
    void tunnelsHttpsThroughConnect() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, false);
        proxy = new TestProxy();
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_1_1));
        HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(
                URI.create("https://localhost:" + server.port() + "/bytes?n=5000")).build(), BodyHandlers.ofByteArray());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is(Bodies.pattern(5000)));
        assertThat(response.sslSession().isPresent(), is(true));
        assertThat(proxy.requestLines(), contains("CONNECT localhost:" + server.port() + " HTTP/1.1"));
    }

    @Test
    void tunnelsH2ThroughConnectWhenTheOriginChoosesIt() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        proxy = new TestProxy();
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_2));
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create("https://localhost:" + server.port() + "/echo")).POST(BodyPublishers.ofString("h2 " + i))
                    .build(), BodyHandlers.ofString());
            assertThat(response.version(), is(HttpClient.Version.HTTP_2));
            assertThat(response.body(), is("h2 " + i));
        }
        assertThat("one tunnel carries every stream", proxy.requestLines(), hasSize(1));
        assertThat(proxy.requestLines(), everyItem(startsWith("CONNECT ")));
    }

    @Test
    void answersA407WithTheAuthenticatorsProxyCredentials() throws Exception {
        server = new JettyTestServer();
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        List<Authenticator.RequestorType> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpClient client = client(newBuilder().version(HttpClient.Version.HTTP_1_1).authenticator(new Authenticator() {
            @Override
            protected PasswordAuthentication getPasswordAuthentication() {
                asked.add(getRequestorType());
                return new PasswordAuthentication(PROXY_USER, PROXY_PASSWORD.toCharArray());
            }
        }));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(server.base() + "/echo"))
                .POST(BodyPublishers.ofString("let me in")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is("let me in"));
        assertThat(asked, contains(Authenticator.RequestorType.PROXY));
        String expected = "Basic " + Base64.getEncoder().encodeToString(
                (PROXY_USER + ':' + PROXY_PASSWORD).getBytes(StandardCharsets.UTF_8));
        assertThat(proxy.authorizations(), contains(expected));
        assertThat(response.previousResponse().map(HttpResponse::statusCode).orElse(0), is(407));
    }

    @Test
    void returnsThe407WithoutAnAuthenticator() throws Exception {
        server = new JettyTestServer();
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        HttpResponse<String> response = client(newBuilder().version(HttpClient.Version.HTTP_1_1)).send(
                HttpRequest.newBuilder(URI.create(server.base() + "/echo")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(407));
        assertThat(proxy.authorizations(), is(empty()));
    }
}
