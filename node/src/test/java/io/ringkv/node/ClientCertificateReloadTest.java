package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.server.ServerTls;
import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.TrustedCertificates;
import io.ringkv.node.TestClientCertificates.Authority;
import io.ringkv.node.TestClientCertificates.Client;
import io.ringkv.node.access.TokenRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code cert:} line added to, then removed from, the token file takes effect on reload (what
 * SIGHUP does), without a restart and on the same TLS connection.
 */
class ClientCertificateReloadTest {
    @TempDir
    Path dir;

    @Test
    void aReloadAddsAndRemovesCertificateLines() throws Exception {
        TestClientCertificates.assumeOpenssl();
        Authority clients = TestClientCertificates.authority(dir, "clients");
        Client client = TestClientCertificates.client(dir, clients, "late-app", null);
        Path file = dir.resolve("tokens");
        Files.writeString(file, "someone  read  cert:someone-else\n");
        TokenRegistry registry = TokenRegistry.load(file);
        Path chain = Path.of(getClass().getClassLoader().getResource("tls/node-chain.pem").toURI());
        Path key = Path.of(getClass().getClassLoader().getResource("tls/node-key.pem").toURI());
        Path ca = Path.of(getClass().getClassLoader().getResource("tls/ca-cert.pem").toURI());
        NodeTls tls = NodeTls.load(chain, key, null, ServerTls.ClientAuth.NEED, clients.certificate());
        SSLContext context = TrustedCertificates.mutualContext(client.credentials(), PemCertificates.read(ca));
        try (Node node = Node.start(NodeConfig.singleNode(0, Files.createDirectory(dir.resolve("data"))).withTokens(registry)
                .withTls(tls.server()));
             HttpClient http = HttpClient.newBuilder().sslContext(context).version(HttpClient.Version.HTTP_1_1).build()) {
            HttpRequest get = HttpRequest.newBuilder(URI.create(node.url() + "/v0/entity?id=absent")).build();
            assertThat(http.send(get, BodyHandlers.discarding()).statusCode(), is(403));
            Files.writeString(file, "late  read  cert:late-app\n", StandardOpenOption.APPEND);
            assertThat(registry.reload(), is(true));
            assertThat(http.send(get, BodyHandlers.discarding()).statusCode(), is(404));
            Files.writeString(file, "someone  read  cert:someone-else\n");
            assertThat(registry.reload(), is(true));
            assertThat(http.send(get, BodyHandlers.discarding()).statusCode(), is(403));
        }
    }
}
