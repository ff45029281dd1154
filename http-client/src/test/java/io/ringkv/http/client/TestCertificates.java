package io.ringkv.http.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate for {@code localhost} only (SAN dns:localhost, no IP), made with the
 * running JDK's keytool into a directory the test owns, and an SSLContext that trusts it.
 */
final class TestCertificates {
    static final String PASSWORD = "changeit";
    private static final long KEYTOOL_SECONDS_MAX = 60;

    private TestCertificates() {
    }

    /** Writes {@code server.p12} (PKCS#12, key and certificate) into {@code directory}. */
    static Path serverKeyStore(Path directory) throws IOException, InterruptedException {
        Path keyStore = directory.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(List.of(keytool, "-genkeypair", "-alias", "server",
                "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD))
                .redirectErrorStream(true).redirectOutput(directory.resolve("keytool.log").toFile()).start();
        if (!process.waitFor(KEYTOOL_SECONDS_MAX, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException("keytool failed: " + Files.readString(directory.resolve("keytool.log")));
        }
        return keyStore;
    }

    /** A client context trusting exactly the certificate in {@code keyStore}. */
    static SSLContext trusting(Path keyStore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
