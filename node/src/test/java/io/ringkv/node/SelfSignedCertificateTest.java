package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItems;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ringkv.net.tls.TlsCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code up --tls}'s certificate: made by openssl (skipped without it), read back by serve's own PEM loading. */
class SelfSignedCertificateTest {
    @TempDir
    Path dir;

    private static boolean opensslInstalled() {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        return java.util.Arrays.stream(path.split(java.io.File.pathSeparator))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "openssl")));
    }

    @Test
    void namesTheHostLocalhostAndLoopbackAndServeAcceptsIt() throws Exception {
        assumeTrue(opensslInstalled(), "openssl is not installed: up --tls cannot make its certificate here; skipped");
        SelfSignedCertificate made = SelfSignedCertificate.create(dir.resolve("tls"), "node-1.example");
        TlsCredentials credentials = TlsCredentials.fromPem(made.certificate(), made.key());
        X509Certificate leaf = credentials.chain().get(0);
        List<String> names = leaf.getSubjectAlternativeNames().stream().map(entry -> Objects.toString(entry.get(1))).toList();
        assertThat(names, hasItems("localhost", "127.0.0.1", "node-1.example"));
    }
}
