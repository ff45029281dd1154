package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
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
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Proxies through the {@link ProxySelector}, for both clients, against Jetty 12 behind
 * {@link TestProxy}: http in absolute-form (RFC 9112 §3.2.2), https through a CONNECT tunnel
 * (RFC 9110 §9.3.6) with TLS end to end, and a 407 answered with the {@link Authenticator}.
 *
 * <p>Proxy authentication for tunnels depends on {@code jdk.http.auth.tunneling.disabledSchemes}
 * (the JDK disables Basic by default), which the JDK reads once per JVM: the module runs this
 * suite twice, once with the default and once (surefire execution {@code proxy-tunnel-basic})
 * with the property empty; the cases that differ check the mode they run in.
 */
@Timeout(120)
abstract class ProxyCompatibilitySuite extends TlsClientSuiteFixture {
    static final String PROXY_USER = "proxy-user";
    static final String PROXY_PASSWORD = "proxy-secret";
    static final String PROXY_CREDENTIALS = "Basic " + Base64.getEncoder().encodeToString(
            (PROXY_USER + ':' + PROXY_PASSWORD).getBytes(StandardCharsets.UTF_8));
    /** Whether this JVM lets Basic credentials go on a CONNECT (the JDK's default: no). */
    static final boolean BASIC_TUNNELLING = java.util.Arrays.stream(
                    System.getProperty("jdk.http.auth.tunneling.disabledSchemes", "Basic").split(","))
            .noneMatch(scheme -> scheme.trim().equalsIgnoreCase("Basic"));


    TestProxy proxy;

    abstract HttpClient.Builder newBuilder();

    /** Runs before the fixture stops the clients and the server (JUnit runs subclass methods first). */
    @AfterEach
    void closeProxy() throws Exception {
        if (proxy != null) {
            proxy.close();
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
        RecordingAuthenticator authenticator = new RecordingAuthenticator(PROXY_PASSWORD);
        HttpClient client = client(newBuilder().version(HttpClient.Version.HTTP_1_1).authenticator(authenticator));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(server.base() + "/echo"))
                .POST(BodyPublishers.ofString("let me in")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is("let me in"));
        assertThat("the proxy is named to the authenticator", authenticator.asked, contains(askedOfProxy()));
        assertThat(proxy.authorizations(), contains(PROXY_CREDENTIALS));
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

    /** What an authenticator was asked, and how often. */
    static final class RecordingAuthenticator extends Authenticator {
        final List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final String password;

        RecordingAuthenticator(String password) {
            this.password = password;
        }

        @Override
        protected PasswordAuthentication getPasswordAuthentication() {
            asked.add(getRequestorType() + " " + getRequestingHost() + ":" + getRequestingPort() + " "
                    + getRequestingProtocol() + " " + getRequestingScheme() + " realm=" + getRequestingPrompt());
            return password == null ? null : new PasswordAuthentication(PROXY_USER, password.toCharArray());
        }
    }

    private URI tlsEcho() {
        return URI.create("https://localhost:" + server.port() + "/echo");
    }

    private String askedOfProxy() {
        return "PROXY " + proxy.address().getHostString() + ":" + proxy.address().getPort() + " http basic realm="
                + TestProxy.REALM;
    }

    @Test
    void tunnel407WithoutAnAuthenticatorIsTheResponseWithoutBody() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, false);
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_1_1));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(tlsEcho()).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(407));
        assertThat("the proxy's answer has no body for the handler", response.body(), is(nullValue()));
        assertThat(response.headers().firstValue("Proxy-Authenticate").orElse(""), startsWith("Basic"));
        assertThat(response.version(), is(HttpClient.Version.HTTP_1_1));
        assertThat(response.sslSession().isPresent(), is(false));
        assertThat(response.previousResponse().isPresent(), is(false));
        assertThat(proxy.requestLines(), contains("CONNECT localhost:" + server.port() + " HTTP/1.1"));
        assertThat(proxy.authorizations(), is(empty()));
    }

    @Test
    void tunnel407IsReturnedUnansweredWhileBasicIsDisabledForTunnels() throws Exception {
        assumeFalse(BASIC_TUNNELLING, "runs with jdk.http.auth.tunneling.disabledSchemes=Basic (the default)");
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        RecordingAuthenticator authenticator = new RecordingAuthenticator(PROXY_PASSWORD);
        HttpClient client = client(newBuilder().sslContext(trusting).authenticator(authenticator));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(tlsEcho())
                .POST(BodyPublishers.ofString("secret body")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(407));
        assertThat(response.body(), is(nullValue()));
        assertThat("the authenticator is not asked", authenticator.asked, is(empty()));
        assertThat(proxy.authorizations(), is(empty()));
        assertThat(proxy.requestLines(), everyItem(startsWith("CONNECT ")));
    }

    @Test
    void tunnel407IsAnsweredOnTheConnectWhenBasicIsAllowedForTunnels() throws Exception {
        assumeTrue(BASIC_TUNNELLING, "runs with jdk.http.auth.tunneling.disabledSchemes empty");
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, false);
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        RecordingAuthenticator authenticator = new RecordingAuthenticator(PROXY_PASSWORD);
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_1_1)
                .authenticator(authenticator));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(tlsEcho())
                .POST(BodyPublishers.ofString("through the tunnel")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.body(), is("through the tunnel"));
        assertThat(authenticator.asked, contains(askedOfProxy()));
        assertThat(proxy.authorizations(), contains(PROXY_CREDENTIALS));
        assertThat(proxy.requestLines(), contains("CONNECT localhost:" + server.port() + " HTTP/1.1",
                "CONNECT localhost:" + server.port() + " HTTP/1.1"));
        assertThat("the origin never sees proxy credentials",
                response.headers().firstValue("X-Request-Proxy-Authorization").orElse(""), is("none"));
        assertThat(response.previousResponse().map(HttpResponse::statusCode).orElse(0), is(407));
        assertThat(response.sslSession().isPresent(), is(true));
    }

    @Test
    void tunnelOverH2IsAuthenticatedOnTheConnectWhenBasicIsAllowed() throws Exception {
        assumeTrue(BASIC_TUNNELLING, "runs with jdk.http.auth.tunneling.disabledSchemes empty");
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        RecordingAuthenticator authenticator = new RecordingAuthenticator(PROXY_PASSWORD);
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_2)
                .authenticator(authenticator));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(tlsEcho())
                .POST(BodyPublishers.ofString("h2 in a tunnel")).build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.version(), is(HttpClient.Version.HTTP_2));
        assertThat(response.body(), is("h2 in a tunnel"));
        assertThat(proxy.authorizations(), contains(PROXY_CREDENTIALS));
        assertThat(response.headers().firstValue("x-request-proxy-authorization").orElse(""), is("none"));
    }

    @Test
    void wrongTunnelCredentialsEndInTooManyAttempts() throws Exception {
        assumeTrue(BASIC_TUNNELLING, "runs with jdk.http.auth.tunneling.disabledSchemes empty");
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, false);
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        RecordingAuthenticator authenticator = new RecordingAuthenticator("wrong");
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_1_1)
                .authenticator(authenticator));
        IOException failure = assertThrows(IOException.class,
                () -> client.send(HttpRequest.newBuilder(tlsEcho()).build(), BodyHandlers.ofString()));
        assertThat(failure.getMessage(), containsString("too many authentication attempts"));
        assertThat(proxy.requestLines(), everyItem(startsWith("CONNECT ")));
        assertThat("one CONNECT without credentials, then one per authenticator answer",
                proxy.requestLines(), hasSize(authenticator.asked.size() + 1));
        assertThat("asked once, then once per retry up to jdk.httpclient.auth.retrylimit (3)",
                authenticator.asked, hasSize(4));
    }

    @Test
    void applicationProxyAuthorizationGoesOnTheConnectOnlyIfItsSchemeIsAllowed() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, false);
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_1_1));
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(tlsEcho())
                .header("Proxy-Authorization", PROXY_CREDENTIALS).build(), BodyHandlers.ofString());
        if (BASIC_TUNNELLING) {
            assertThat(response.statusCode(), is(200));
            assertThat(proxy.authorizations(), contains(PROXY_CREDENTIALS));
            assertThat(response.headers().firstValue("X-Request-Proxy-Authorization").orElse(""), is("none"));
        } else {
            assertThat(response.statusCode(), is(407));
            assertThat(response.body(), is(nullValue()));
            assertThat(proxy.authorizations(), is(empty()));
        }
    }

    @Test
    void proxyFieldsNeverReachTheOriginThroughAnOpenTunnel() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, true);
        proxy = new TestProxy();
        for (HttpClient.Version version : HttpClient.Version.values()) {
            HttpResponse<String> response = client(newBuilder().sslContext(trusting).version(version)).send(
                    HttpRequest.newBuilder(tlsEcho()).header("Proxy-Authorization", "Bearer token-for-the-proxy")
                            .build(), BodyHandlers.ofString());
            assertThat(response.statusCode(), is(200));
            assertThat(response.headers().firstValue("X-Request-Proxy-Authorization").orElse(""), is("none"));
        }
    }

    @Test
    void proxyFieldsNeverReachAnOriginWithoutProxy() throws Exception {
        server = new JettyTestServer();
        HttpClient client = newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        clients.add(client);
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(server.base() + "/echo"))
                .header("Proxy-Authorization", "Bearer token-for-a-proxy").build(), BodyHandlers.ofString());
        assertThat(response.statusCode(), is(200));
        assertThat(response.headers().firstValue("X-Request-Proxy-Authorization").orElse(""), is("none"));
    }

    @Test
    void connectRefusedWithAnotherStatusIsIOException() throws Exception {
        server = JettyTestServer.tls(keyStore, TestCertificates.PASSWORD, false);
        proxy = new TestProxy().refuseConnectWith(403);
        HttpClient client = client(newBuilder().sslContext(trusting).version(HttpClient.Version.HTTP_1_1));
        IOException failure = assertThrows(IOException.class,
                () -> client.send(HttpRequest.newBuilder(tlsEcho()).build(), BodyHandlers.ofString()));
        assertThat(failure.getClass(), is(IOException.class));
        assertThat(failure.getMessage(), containsString("403"));
    }

    @Test
    void authenticatorWithoutCredentialsFailsTheCall() throws Exception {
        server = new JettyTestServer();
        proxy = new TestProxy(PROXY_USER, PROXY_PASSWORD);
        RecordingAuthenticator authenticator = new RecordingAuthenticator(null);
        HttpClient client = client(newBuilder().version(HttpClient.Version.HTTP_1_1).authenticator(authenticator));
        IOException failure = assertThrows(IOException.class, () -> client.send(
                HttpRequest.newBuilder(URI.create(server.base() + "/echo")).build(), BodyHandlers.ofString()));
        assertThat(failure.getMessage(), containsString("No credentials provided"));
        assertThat(authenticator.asked, contains(askedOfProxy()));
    }
}
