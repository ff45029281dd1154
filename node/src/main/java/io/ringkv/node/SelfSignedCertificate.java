package io.ringkv.node;

import io.ringkv.net.tls.PemCertificates;
import io.ringkv.net.tls.PemFileException;
import io.ringkv.net.tls.TrustedCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * A self-signed certificate and its key for {@code ringkv up --tls}, made by the {@code openssl}
 * command (OpenSSL 1.1.1 or later: {@code -addext}): EC P-256, valid for a year, naming the
 * nodes' host, {@code localhost} and {@code 127.0.0.1}, written as PEM into a directory. For a
 * local cluster to try TLS with, not for production (which brings its own certificates).
 *
 * @param certificate the PEM certificate (also what clients trust: {@code curl --cacert})
 * @param key         its unencrypted PKCS#8 key
 */
record SelfSignedCertificate(Path certificate, Path key) {
    static final int VALIDITY_DAYS = 365;
    private static final long OPENSSL_LIMIT_SECONDS = 60;

    /** @throws IOException naming what failed (openssl missing, or its own message) */
    static SelfSignedCertificate create(Path dir, String host) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path certificate = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        String names = "DNS:localhost,IP:127.0.0.1" + (host.equals("localhost") || host.equals("127.0.0.1") ? ""
                : "," + (host.chars().allMatch(c -> c == '.' || Character.isDigit(c)) || host.contains(":") ? "IP:" : "DNS:") + host);
        List<String> command = List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-keyout", key.toString(), "-out", certificate.toString(), "-days", Integer.toString(VALIDITY_DAYS),
                "-subj", "/CN=ringkv up", "-addext", "subjectAltName=" + names);
        Process openssl;
        try {
            openssl = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("up --tls makes its certificate with openssl, which cannot be run (" + e.getMessage()
                    + "); on Debian: apt-get install openssl", e);
        }
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!openssl.waitFor(OPENSSL_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            openssl.destroyForcibly();
            throw new IOException("openssl did not finish making the certificate");
        }
        if (openssl.exitValue() != 0) {
            throw new IOException("openssl could not make the certificate (exit " + openssl.exitValue() + "): " + output.strip());
        }
        return new SelfSignedCertificate(certificate, key);
    }

    /** A client context that trusts this certificate alone. */
    SSLContext trust() throws PemFileException {
        return TrustedCertificates.clientContext(PemCertificates.read(certificate));
    }
}
