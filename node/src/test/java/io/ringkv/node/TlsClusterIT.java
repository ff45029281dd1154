package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.TlsCredentials;
import io.ringkv.net.tls.TrustedCertificates;
import io.ringkv.ops.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes started with {@code serve --tls-cert --tls-key} as separate processes: a 3-node cluster
 * whose public API and node-to-node calls are all TLS (h2 by ALPN), with one certificate chain
 * shared by the nodes (a leaf for 127.0.0.1 and the CA that signed it, in src/test/resources/tls),
 * which {@code status} and {@code repair} reach with {@code --tls-trust}; and a node given a bad
 * PEM file, which exits 2 naming it.
 */
class TlsClusterIT {
    @TempDir
    Path root;

    static Path resource(String name) {
        try {
            return Path.of(TlsClusterIT.class.getClassLoader().getResource("tls/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void threeNodesOverTlsReplicateThroughAnyNode() throws Exception {
        // The test's client trusts the CA alone: the nodes must present the chain, leaf first.
        SSLContext trust = TrustedCertificates.clientContext(PemCertificates.read(resource("ca-cert.pem")));
        List<String> tls = List.of("--tls-cert", resource("node-chain.pem").toString(),
                "--tls-key", resource("node-key.pem").toString());
        try (ProcessCluster cluster = new ProcessCluster(root, 3, tls, Map.of(), trust)) {
            assertThat(cluster.url(0), startsWith("https://"));
            // 3/3: the coordinator waits for both peers, so the write crossed two TLS links.
            assertThat(cluster.put(0, "k", "over-tls", "3/3").statusCode(), is(201));
            for (int node = 0; node < 3; node++) {
                HttpResponse<String> read = cluster.get(node, "k", "3/3");
                assertThat("node " + node, read.statusCode(), is(200));
                assertThat(read.body(), is("over-tls"));
            }
            try (HttpClient h2 = HttpClient.newBuilder().sslContext(trust).version(HttpClient.Version.HTTP_2).build()) {
                HttpResponse<String> status = h2.send(HttpRequest.newBuilder(URI.create(cluster.url(1) + "/v0/status"))
                        .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(status.version(), is(HttpClient.Version.HTTP_2));
                assertThat(status.body(), allOf(containsString("\"node\":\"" + cluster.url(1) + "\""),
                        containsString("\"node\":\"" + cluster.url(0) + "\",\"state\":\"up\"")));
            }
            assertThat(cluster.send(2, "GET", "/metrics", null).body(),
                    containsString("ringkv_server_tls_handshakes_failed_total "));
            // The commands that call nodes: status over https, and a repair round, whose
            // anti-entropy exchanges go node to node over TLS (exit 0: every peer compared).
            String ca = resource("ca-cert.pem").toString();
            StringWriter status = new StringWriter();
            assertThat(Main.run(new PrintWriter(status), new PrintWriter(new StringWriter()), "status", "--node",
                    cluster.url(0), "--interval", "PT0.2S", "--tls-trust", ca), is(0));
            assertThat(status.toString(), allOf(containsString(cluster.url(1)), containsString(cluster.url(2))));
            assertThat(Main.run("repair", "--node", cluster.url(2), "--wait", "--cluster-secret-file",
                    cluster.secretFile().toString(), "--tls-trust", ca), is(0));
            // The metadata group's Raft calls go over the same TLS links: every node reaches epoch 1.
            long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            for (int node = 0; node < 3; node++) {
                while (!cluster.send(node, "GET", "/v0/status", null).body().contains("\"metadata\":{\"epoch\":1,")) {
                    assertThat("node " + node + " formed the metadata over TLS", System.nanoTime() < deadline, is(true));
                    Thread.sleep(100);
                }
            }
        }
    }

    /**
     * Every node needs a client certificate ({@code --tls-client-auth need}): the nodes' calls to
     * each other present their own certificate, so a write still reaches all three, and a client
     * without a certificate fails the handshake.
     */
    @Test
    void threeNodesThatNeedClientCertificatesStillReplicate() throws Exception {
        TlsCredentials nodeCredentials = TlsCredentials.fromPem(resource("node-chain.pem"), resource("node-key.pem"));
        List<java.security.cert.X509Certificate> ca = PemCertificates.read(resource("ca-cert.pem"));
        // The test's client presents the nodes' certificate: a certificate the nodes verify.
        SSLContext withCertificate = TrustedCertificates.mutualContext(nodeCredentials, ca);
        List<String> tls = List.of("--tls-cert", resource("node-chain.pem").toString(),
                "--tls-key", resource("node-key.pem").toString(), "--tls-client-auth", "need");
        try (ProcessCluster cluster = new ProcessCluster(root, 3, tls, Map.of(), withCertificate)) {
            assertThat(cluster.put(0, "k", "mutual", "3/3").statusCode(), is(201));
            for (int node = 0; node < 3; node++) {
                HttpResponse<String> read = cluster.get(node, "k", "3/3");
                assertThat("node " + node, read.statusCode(), is(200));
                assertThat(read.body(), is("mutual"));
            }
            try (HttpClient anonymous = HttpClient.newBuilder().sslContext(TrustedCertificates.clientContext(ca)).build()) {
                HttpRequest status = HttpRequest.newBuilder(URI.create(cluster.url(1) + "/v0/status"))
                        .timeout(Duration.ofSeconds(20)).build();
                assertThrows(java.io.IOException.class, () -> anonymous.send(status, HttpResponse.BodyHandlers.ofString()));
            }
        }
    }

    @Test
    void aKeyThatIsNotTheCertificatesStopsServeWithExitCode2() throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Path key = resource("other-key.pem");
        NodeProcess node = new NodeProcess("bad-pem", List.of("--port", "0", "--data", root.resolve("data").toString(),
                "--tls-cert", resource("node-chain.pem").toString(), "--tls-key", key.toString()),
                new PrintStream(output, true, StandardCharsets.UTF_8)).start();
        assertThat(node.waitFor(), is(Main.EXIT_USAGE));
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!output.toString(StandardCharsets.UTF_8).contains("--tls-key") && System.nanoTime() < deadline) {
            Thread.sleep(10); // the log pump reads the last lines after the exit
        }
        assertThat(output.toString(StandardCharsets.UTF_8),
                allOf(containsString("--tls-key " + key), containsString("is not the private key of the certificate")));
    }
}
