package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.server.ServerTls;
import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.TlsCredentials;
import io.ringkv.net.tls.TrustedCertificates;
import io.ringkv.node.TestClientCertificates.Authority;
import io.ringkv.node.TestClientCertificates.Client;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.ops.BearerToken;
import io.ringkv.ops.StatusCommand;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificates ({@code serve --tls-client-auth}) over real TLS on 127.0.0.1: two nodes
 * with one token file, one that needs a certificate and one that wants one. The certificates are
 * made with openssl (the test is skipped without it): a client CA the nodes trust, a rogue CA
 * they do not, and clients named by their CN or a subject alternative name in {@code cert:}
 * lines of the token file.
 */
class ClientCertificateTest {
    @TempDir
    static Path dir;

    private static Path tokenFile;
    private static TokenRegistry registry;
    private static Node needs;
    private static Node wants;
    private static String writerToken;
    private static SSLContext noCertificate;
    private static SSLContext reader;
    private static SSLContext writerBySan;
    private static SSLContext stranger;
    private static SSLContext expired;
    private static SSLContext rogue;
    private static SSLContext rogueAlwaysSent;
    private static Client readerFiles;

    @BeforeAll
    static void start() throws Exception {
        TestClientCertificates.assumeOpenssl();
        Authority clients = TestClientCertificates.authority(dir, "clients");
        Authority rogueCa = TestClientCertificates.authority(dir, "rogue");
        Client readerCertificate = TestClientCertificates.client(dir, clients, "reader-app", null);
        readerFiles = readerCertificate;
        Client writerCertificate = TestClientCertificates.client(dir, clients, "batch job", "email:writer@example.org");
        Client strangerCertificate = TestClientCertificates.client(dir, clients, "stranger", null);
        Client expiredCertificate = TestClientCertificates.client(dir, clients, "expired-app", null);
        // The reader's name, from a CA the nodes do not trust: the name alone must not let it in.
        Client rogueCertificate = TestClientCertificates.client(dir, rogueCa, "reader-app", null);

        tokenFile = dir.resolve("tokens");
        writerToken = BearerToken.generate();
        TokenFile.add(tokenFile, new Grant("app", AccessScope.parseList("read,write"), null), BearerToken.sha256(writerToken));
        Files.writeString(tokenFile, "reader-cert  read  cert:reader-app\nwriter-cert  read,write  cert:writer@example.org\n"
                        + "expired-cert  read,write  cert:expired-app  expires=2020-01-01T00:00:00Z\n",
                StandardOpenOption.APPEND);
        registry = TokenRegistry.load(tokenFile);

        List<X509Certificate> serverAnchors = PemCertificates.read(resource("ca-cert.pem"));
        noCertificate = TrustedCertificates.clientContext(serverAnchors);
        reader = TrustedCertificates.mutualContext(readerCertificate.credentials(), serverAnchors);
        writerBySan = TrustedCertificates.mutualContext(writerCertificate.credentials(), serverAnchors);
        stranger = TrustedCertificates.mutualContext(strangerCertificate.credentials(), serverAnchors);
        expired = TrustedCertificates.mutualContext(expiredCertificate.credentials(), serverAnchors);
        rogue = TrustedCertificates.mutualContext(rogueCertificate.credentials(), serverAnchors);
        rogueAlwaysSent = alwaysPresenting(rogueCertificate.credentials(), serverAnchors);

        needs = Node.start(NodeConfig.singleNode(0, Files.createDirectory(dir.resolve("needs"))).withTokens(registry)
                .withTls(nodeTls(ServerTls.ClientAuth.NEED, clients).server()));
        wants = Node.start(NodeConfig.singleNode(0, Files.createDirectory(dir.resolve("wants"))).withTokens(registry)
                .withTls(nodeTls(ServerTls.ClientAuth.WANT, clients).server()));
    }

    /**
     * A client context that presents {@code credentials} whatever CAs the server asks for (the
     * JDK's own key manager sends only a certificate from one of those).
     */
    private static SSLContext alwaysPresenting(TlsCredentials credentials, List<X509Certificate> anchors) throws Exception {
        char[] none = new char[0];
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("client", credentials.key(), none, credentials.chain().toArray(X509Certificate[]::new));
        KeyManagerFactory factory = KeyManagerFactory.getInstance("SunX509");
        factory.init(keys, none);
        X509KeyManager base = (X509KeyManager) factory.getKeyManagers()[0];
        X509ExtendedKeyManager always = new X509ExtendedKeyManager() {
            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return new String[] {"client"};
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return "client";
            }

            @Override
            public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
                return "client";
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                return base.getCertificateChain(alias);
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                return base.getPrivateKey(alias);
            }
        };
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        for (int i = 0; i < anchors.size(); i++) {
            trusted.setCertificateEntry("ca-" + i, anchors.get(i));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {always}, trust.getTrustManagers(), null);
        return context;
    }

    private static NodeTls nodeTls(ServerTls.ClientAuth auth, Authority clients) throws Exception {
        return NodeTls.load(resource("node-chain.pem"), resource("node-key.pem"), null, auth, clients.certificate());
    }

    @AfterAll
    static void stop() {
        if (needs != null) {
            needs.close();
        }
        if (wants != null) {
            wants.close();
        }
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(ClientCertificateTest.class.getClassLoader().getResource("tls/" + name).toURI());
    }

    private static HttpResponse<String> send(Node node, SSLContext tls, HttpClient.Version version, String method,
                                             String target, String body, String... headers) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().sslContext(tls).version(version).build()) {
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(node.url() + target))
                    .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body));
            for (int i = 0; i < headers.length; i += 2) {
                builder.header(headers[i], headers[i + 1]);
            }
            HttpResponse<String> response = client.send(builder.build(), BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertThat(response.version(), is(version));
            return response;
        }
    }

    private static HttpResponse<String> send(Node node, SSLContext tls, String method, String target, String body)
            throws Exception {
        return send(node, tls, HttpClient.Version.HTTP_1_1, method, target, body);
    }

    @Test
    void needRefusesTheHandshakeOfAClientWithoutACertificate() {
        assertThrows(IOException.class, () -> send(needs, noCertificate, HttpClient.Version.HTTP_1_1, "GET", "/v0/entity?id=n1", null,
                "Authorization", "Bearer " + writerToken));
    }

    @Test
    void needRefusesTheHandshakeOfACertificateFromAnUntrustedCa() {
        assertThrows(IOException.class, () -> send(needs, rogue, "GET", "/v0/entity?id=n2", null));
    }

    /**
     * The JDK's client sends no certificate whose issuer is not among the CAs the server names in
     * its request, so the rogue certificate never reaches the node: it must not be taken for the
     * reader's, and without a token the request is unauthenticated.
     */
    @Test
    void wantGivesACertificateFromAnUntrustedCaNoScopes() throws Exception {
        assertThat(send(wants, rogue, "GET", "/v0/entity?id=w0", null).statusCode(), is(401));
    }

    /** A client that sends its rogue certificate even though the server names other CAs (as curl does). */
    @Test
    void wantRefusesTheHandshakeOfACertificateFromAnUntrustedCaThatIsSent() {
        assertThrows(IOException.class, () -> send(wants, rogueAlwaysSent, "GET", "/v0/entity?id=w4", null));
    }

    @Test
    void needGivesAMappedCertificateItsScopes() throws Exception {
        assertThat(send(needs, writerBySan, "PUT", "/v0/entity?id=n3", "v").statusCode(), is(201));
        assertThat(send(needs, reader, "GET", "/v0/entity?id=n3", null).statusCode(), is(200));
        HttpResponse<String> write = send(needs, reader, "PUT", "/v0/entity?id=n3", "w");
        assertThat(write.statusCode(), is(403));
        assertThat(write.body(), containsString("reader-cert"));
    }

    @Test
    void wantGivesAReadOnlyCertificateReadsButNotWrites() throws Exception {
        assertThat(send(wants, writerBySan, "PUT", "/v0/entity?id=w1", "v").statusCode(), is(201));
        assertThat(send(wants, reader, "GET", "/v0/entity?id=w1", null).statusCode(), is(200));
        assertThat(send(wants, reader, "PUT", "/v0/entity?id=w1", "w").statusCode(), is(403));
        assertThat(send(wants, reader, "DELETE", "/v0/entity?id=w1", null).statusCode(), is(403));
    }

    @Test
    void wantWithoutACertificateFallsBackToTheToken() throws Exception {
        assertThat(send(wants, noCertificate, HttpClient.Version.HTTP_1_1, "PUT", "/v0/entity?id=w2", "v",
                "Authorization", "Bearer " + writerToken).statusCode(), is(201));
        HttpResponse<String> anonymous = send(wants, noCertificate, "GET", "/v0/entity?id=w2", null);
        assertThat(anonymous.statusCode(), is(401));
        assertThat(anonymous.headers().firstValue("WWW-Authenticate").orElse(""), containsString("Bearer"));
    }

    @Test
    void aMappedCertificateWorksOverH2() throws Exception {
        assertThat(send(wants, writerBySan, HttpClient.Version.HTTP_2, "PUT", "/v0/entity?id=w3", "v").statusCode(), is(201));
        assertThat(send(wants, reader, HttpClient.Version.HTTP_2, "GET", "/v0/entity?id=w3", null).statusCode(), is(200));
        assertThat(send(wants, reader, HttpClient.Version.HTTP_2, "PUT", "/v0/entity?id=w3", "w").statusCode(), is(403));
    }

    @Test
    void aVerifiedCertificateNoLineNamesIs403NamingItsSubject() throws Exception {
        HttpResponse<String> response = send(needs, stranger, "GET", "/v0/entity?id=n4", null);
        assertThat(response.statusCode(), is(403));
        assertThat(response.body(), containsString("CN=stranger"));
    }

    @Test
    void aCertificateWhoseLineExpiredIs403SayingSoAndAValidTokenStillApplies() throws Exception {
        HttpResponse<String> response = send(needs, expired, "PUT", "/v0/entity?id=n6", "v");
        assertThat(response.statusCode(), is(403));
        assertThat(response.body(), allOf(containsString("CN=expired-app"), containsString("'expired-cert'"),
                containsString("expired at 2020-01-01T00:00:00Z")));
        assertThat(send(needs, expired, HttpClient.Version.HTTP_1_1, "PUT", "/v0/entity?id=n6", "v",
                "Authorization", "Bearer " + writerToken).statusCode(), is(201));
    }

    @Test
    void anUnmappedCertificateStillLetsAValidTokenThrough() throws Exception {
        assertThat(send(wants, stranger, HttpClient.Version.HTTP_1_1, "PUT", "/v0/entity?id=w5", "v",
                "Authorization", "Bearer " + writerToken).statusCode(), is(201));
    }

    @Test
    void theStatusStaysOpenToAnyVerifiedCertificate() throws Exception {
        assertThat(send(needs, stranger, "GET", "/v0/status", null).statusCode(), is(200));
    }

    @Test
    void theStatusCommandReachesANodeThatNeedsACertificateWhenItPresentsOne() throws Exception {
        String trust = resource("ca-cert.pem").toString();
        java.io.StringWriter refusedErr = new java.io.StringWriter();
        int withoutCertificate = Main.run(new java.io.PrintWriter(new java.io.StringWriter()), new java.io.PrintWriter(refusedErr),
                "status", "--node", needs.url(), "--interval", "PT0.2S", "--tls-trust", trust);
        assertThat(refusedErr.toString(), withoutCertificate, is(StatusCommand.EXIT_NOT_ALL_UP));

        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int withCertificate = Main.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err), "status", "--node", needs.url(),
                "--interval", "PT0.2S", "--tls-trust", trust, "--tls-client-cert", readerFiles.certificate().toString(),
                "--tls-client-key", readerFiles.key().toString());
        assertThat(out + "\n" + err, withCertificate, is(0));
        assertThat(out.toString(), org.hamcrest.Matchers.containsString(needs.url()));
    }

    @Test
    void aClientCertificateWithoutItsKeyOrWithoutTrustIsAUsageError() throws Exception {
        String certificate = readerFiles.certificate().toString();
        assertThat(Main.run("status", "--node", needs.url(), "--tls-client-cert", certificate,
                "--tls-trust", resource("ca-cert.pem").toString()), is(Main.EXIT_USAGE));
        assertThat(Main.run("status", "--node", needs.url(), "--tls-client-cert", certificate,
                "--tls-client-key", readerFiles.key().toString()), is(Main.EXIT_USAGE));
    }
}
