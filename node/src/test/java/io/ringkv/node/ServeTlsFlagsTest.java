package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecretFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve}'s TLS flags: files and combinations that cannot work are usage errors (exit 2) naming the file and the problem. */
class ServeTlsFlagsTest {
    @TempDir
    Path dir;

    private final StringWriter err = new StringWriter();

    /** Runs serve with these flags; none of the tests gets as far as starting a node. */
    private int serve(String... flags) {
        List<String> args = new ArrayList<>(List.of("serve", "--port", "7001", "--data", dir.resolve("data").toString()));
        args.addAll(List.of(flags));
        return Main.run(new PrintWriter(new StringWriter()), new PrintWriter(err, true), args.toArray(String[]::new));
    }

    private static String chain() {
        return TlsClusterIT.resource("node-chain.pem").toString();
    }

    private static String key() {
        return TlsClusterIT.resource("node-key.pem").toString();
    }

    @Test
    void aCertificateFileThatIsNotPemIsNamed() throws Exception {
        Path notPem = Files.writeString(dir.resolve("cert.pem"), "not a certificate\n");
        assertThat(serve("--tls-cert", notPem.toString(), "--tls-key", key()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), allOf(containsString("--tls-cert " + notPem), containsString("no '-----BEGIN CERTIFICATE-----'")));
    }

    @Test
    void aMissingKeyFileIsNamed() {
        Path missing = dir.resolve("missing-key.pem");
        assertThat(serve("--tls-cert", chain(), "--tls-key", missing.toString()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), allOf(containsString("--tls-key " + missing), containsString("cannot read it")));
    }

    @Test
    void aKeyOfAnotherCertificateIsNamed() {
        String other = TlsClusterIT.resource("other-key.pem").toString();
        assertThat(serve("--tls-cert", chain(), "--tls-key", other), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--tls-key " + other + ": is not the private key of the certificate"));
    }

    @Test
    void certificateAndKeyGoTogether() {
        assertThat(serve("--tls-cert", chain()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--tls-cert and --tls-key go together"));
    }

    @Test
    void trustWithoutTlsIsAUsageError() {
        assertThat(serve("--tls-trust", chain()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--tls-trust is for peers over https"));
    }

    @Test
    void clientAuthWithoutTlsIsAUsageError() {
        assertThat(serve("--tls-client-auth", "need"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--tls-client-auth and --tls-client-trust are about TLS client certificates"));
    }

    @Test
    void clientTrustWithoutClientAuthIsAUsageError() {
        assertThat(serve("--tls-cert", chain(), "--tls-key", key(), "--tls-client-trust", chain()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--tls-client-trust is for verifying client certificates"));
    }

    @Test
    void anUnknownClientAuthModeIsAUsageError() {
        assertThat(serve("--tls-cert", chain(), "--tls-key", key(), "--tls-client-auth", "maybe"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--tls-client-auth"));
    }

    @Test
    void aClientTrustFileThatIsNotPemIsNamed() throws Exception {
        Path notPem = Files.writeString(dir.resolve("clients.pem"), "not a certificate\n");
        assertThat(serve("--tls-cert", chain(), "--tls-key", key(), "--tls-client-auth", "want", "--tls-client-trust",
                notPem.toString()), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("--tls-client-trust " + notPem));
    }

    @Test
    void aTlsNodeRefusesAnHttpClusterList() throws Exception {
        Path secret = ClusterSecretFile.create(dir.resolve("cluster.secret"));
        assertThat(serve("--tls-cert", chain(), "--tls-key", key(), "--cluster-secret-file", secret.toString(),
                "--cluster", "http://127.0.0.1:7001,http://127.0.0.1:7002"), is(Main.EXIT_USAGE));
        assertThat(err.toString(), containsString("list every node as https://"));
    }
}
