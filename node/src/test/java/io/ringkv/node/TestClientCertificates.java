package io.ringkv.node;

import io.ringkv.net.tls.PemFileException;
import io.ringkv.net.tls.TlsCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Certificate authorities and client certificates made in a test's directory by the
 * {@code openssl} command (EC P-256, valid 30 days): a test that needs them is skipped, with a
 * message saying so, where openssl cannot be run. Test helper.
 */
final class TestClientCertificates {
    private static final long OPENSSL_LIMIT_SECONDS = 60;

    /** A CA: its certificate (to trust) and key (to sign with). */
    record Authority(Path certificate, Path key) {
    }

    /** A client's certificate, signed by an {@link Authority}, and its key. */
    record Client(Path certificate, Path key) {
        TlsCredentials credentials() throws PemFileException {
            return TlsCredentials.fromPem(certificate, key);
        }
    }

    private TestClientCertificates() {
    }

    /** Skips the calling test when openssl cannot be run. */
    static void assumeOpenssl() {
        boolean runs;
        try {
            Process version = new ProcessBuilder("openssl", "version").redirectErrorStream(true).start();
            version.getInputStream().readAllBytes();
            runs = version.waitFor(OPENSSL_LIMIT_SECONDS, TimeUnit.SECONDS) && version.exitValue() == 0;
        } catch (IOException e) {
            runs = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            runs = false;
        }
        Assumptions.assumeTrue(runs, "skipped: the client certificates of this test are made with openssl, which cannot "
                + "be run here (on Debian: apt-get install openssl)");
    }

    static Authority authority(Path dir, String name) throws IOException, InterruptedException {
        Path certificate = dir.resolve(name + "-ca.pem");
        Path key = dir.resolve(name + "-ca-key.pem");
        run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.toString(),
                "-out", certificate.toString(), "-days", "30", "-subj", "/CN=" + name + " test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        return new Authority(certificate, key);
    }

    /**
     * @param subjectAltName an openssl subjectAltName value (e.g. {@code email:a@example.org}), or null for none
     */
    static Client client(Path dir, Authority issuer, String commonName, String subjectAltName)
            throws IOException, InterruptedException {
        String base = commonName.replaceAll("[^A-Za-z0-9-]", "_") + "-" + issuer.certificate().getFileName().toString()
                .replace(".pem", "");
        Path key = dir.resolve(base + "-key.pem");
        Path request = dir.resolve(base + ".csr");
        Path certificate = dir.resolve(base + ".pem");
        Path extensions = dir.resolve(base + ".ext");
        Files.writeString(extensions, "extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n"
                + (subjectAltName == null ? "" : "subjectAltName=" + subjectAltName + "\n"));
        run("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.toString(),
                "-out", request.toString(), "-subj", "/O=ringkv tests/CN=" + commonName);
        run("x509", "-req", "-in", request.toString(), "-CA", issuer.certificate().toString(), "-CAkey",
                issuer.key().toString(), "-CAcreateserial", "-out", certificate.toString(), "-days", "30",
                "-extfile", extensions.toString());
        return new Client(certificate, key);
    }

    private static void run(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(arguments));
        Process openssl = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!openssl.waitFor(OPENSSL_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            openssl.destroyForcibly();
            throw new IOException("openssl " + arguments[0] + " did not finish");
        }
        if (openssl.exitValue() != 0) {
            throw new IOException("openssl " + String.join(" ", arguments) + " failed: " + output.strip());
        }
    }
}
