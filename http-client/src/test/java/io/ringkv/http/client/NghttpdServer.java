package io.ringkv.http.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * An nghttpd process (the nghttp2 project's HTTP/2 server) on 127.0.0.1 for interop tests: h2
 * over TLS by ALPN, or h2c by prior knowledge ({@code --no-tls}); serves files from a directory
 * and echoes uploads ({@code --echo-upload}). Test scope only.
 */
final class NghttpdServer implements AutoCloseable {
    static final String SKIP_MESSAGE = "nghttpd not found on PATH: install Debian package nghttp2-server "
            + "(src/test/resources/interop/install-nghttpd.sh) to run the nghttpd interop tests";
    private static final long START_SECONDS_MAX = 30;
    private static final long STOP_SECONDS_MAX = 10;

    private final Process process;
    private final int port;

    /**
     * Starts nghttpd and waits until it accepts connections.
     *
     * @param pem {@code null} for h2c, else the key and certificate for TLS
     */
    NghttpdServer(Path htdocs, Pem pem, Path logDirectory) throws IOException {
        port = freePort();
        List<String> command = new ArrayList<>(List.of(binary().orElseThrow().toString(),
                "--address=127.0.0.1", "--htdocs=" + htdocs, "--echo-upload"));
        if (pem != null) {
            command.addAll(List.of(Integer.toString(port), pem.key().toString(), pem.certificate().toString()));
        } else {
            command.addAll(List.of("--no-tls", Integer.toString(port)));
        }
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(logDirectory.resolve("nghttpd-" + port + ".log").toFile()).start();
        try {
            Awaitility.await().atMost(START_SECONDS_MAX, TimeUnit.SECONDS).until(this::accepting);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    int port() {
        return port;
    }

    /** The nghttpd executable on the PATH, if any. */
    static Optional<Path> binary() {
        return Executables.onPath("nghttpd");
    }

    private boolean accepting() {
        if (!process.isAlive()) {
            throw new IllegalStateException("nghttpd exited with " + process.exitValue());
        }
        try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_SECONDS_MAX, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The test key and certificate as PEM files, which nghttpd (OpenSSL) wants: the key as PKCS#8,
     * the certificate as X.509.
     */
    record Pem(Path key, Path certificate) {
        static Pem export(Path keyStore, Path directory) throws Exception {
            KeyStore store = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(keyStore)) {
                store.load(in, TestCertificates.PASSWORD.toCharArray());
            }
            Key key = store.getKey("server", TestCertificates.PASSWORD.toCharArray());
            Certificate certificate = store.getCertificate("server");
            return new Pem(Files.writeString(directory.resolve("server.key"), pem("PRIVATE KEY", key.getEncoded())),
                    Files.writeString(directory.resolve("server.crt"), pem("CERTIFICATE", certificate.getEncoded())));
        }

        private static String pem(String type, byte[] der) {
            String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
            return "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n";
        }
    }
}
