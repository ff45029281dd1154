package io.ringkv.bench.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away self-signed certificate for 127.0.0.1 (SAN ip:127.0.0.1 and dns:localhost), made
 * with the running JDK's keytool into a temporary PKCS#12 keystore, and an SSLContext that trusts
 * exactly it. Every client under test gets that context, so all of them verify the server's name
 * against the IP SAN, as a real deployment would.
 *
 * <p>Threading: create and close on one thread; {@link #trustingContext()} may be called from any.
 */
public final class SelfSignedCertificate implements AutoCloseable {
    public static final String PASSWORD = "benchpass";
    private static final long KEYTOOL_SECONDS_MAX = 60;

    private final Path directory;
    private final Path keyStore;

    private SelfSignedCertificate(Path directory, Path keyStore) {
        this.directory = directory;
        this.keyStore = keyStore;
    }

    public static SelfSignedCertificate generate() throws IOException, InterruptedException {
        Path directory = Files.createTempDirectory("ringkv-clientbench-tls");
        Path keyStore = directory.resolve("server.p12");
        Path log = directory.resolve("keytool.log");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process process = new ProcessBuilder(List.of(keytool, "-genkeypair", "-alias", "server",
                "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(KEYTOOL_SECONDS_MAX, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException("keytool failed: " + Files.readString(log));
        }
        return new SelfSignedCertificate(directory, keyStore);
    }

    public Path keyStore() {
        return keyStore;
    }

    /** A client context whose only trust anchor is this certificate. */
    public SSLContext trustingContext() throws Exception {
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

    @Override
    public void close() throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
