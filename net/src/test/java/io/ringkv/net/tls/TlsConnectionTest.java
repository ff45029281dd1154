package io.ringkv.net.tls;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.net.ChannelOptions;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoopGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TlsConnection} as a client over a real socket, against the JDK's blocking SSLServerSocket
 * echoing what it reads: handshake, ALPN choice of the handler, plaintext both ways (1 MiB, to
 * cross many records), host name verification.
 */
@Timeout(60)
class TlsConnectionTest {
    private static final String PASSWORD = "changeit";
    @TempDir
    static Path keys;
    static SSLContext context;

    private final EventLoopGroup group = new EventLoopGroup(1, "tls-test");
    private SSLServerSocket listener;

    TlsConnectionTest() throws IOException {
    }

    @BeforeAll
    static void makeCertificate() throws Exception {
        Path store = keys.resolve("server.p12");
        Process keytool = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
                "-ext", "SAN=dns:localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", PASSWORD, "-keypass", PASSWORD)).redirectErrorStream(true)
                .redirectOutput(keys.resolve("keytool.log").toFile()).start();
        assertThat("keytool ran", keytool.waitFor(60, TimeUnit.SECONDS) && keytool.exitValue() == 0, is(true));
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, PASSWORD.toCharArray());
        }
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keyStore, PASSWORD.toCharArray());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(keyStore);
        context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), trust.getTrustManagers(), null);
    }

    @AfterEach
    void close() throws IOException {
        group.close();
        if (listener != null) {
            listener.close();
        }
    }

    private int startEchoServer() throws IOException {
        listener = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 10, InetAddress.getLoopbackAddress());
        SSLParameters parameters = listener.getSSLParameters();
        parameters.setApplicationProtocols(new String[] {"h2"});
        listener.setSSLParameters(parameters);
        Thread echo = new Thread(() -> {
            try (SSLSocket socket = (SSLSocket) listener.accept(); InputStream in = socket.getInputStream();
                    OutputStream out = socket.getOutputStream()) {
                byte[] buffer = new byte[16 * 1024];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // the client went away or the handshake failed: the scenario decides what that means
            }
        }, "tls-echo");
        echo.setDaemon(true);
        echo.start();
        return listener.getLocalPort();
    }

    private TlsConnection connect(String host, int port, Collecting handler) {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        parameters.setApplicationProtocols(new String[] {"h2", "http/1.1"});
        engine.setSSLParameters(parameters);
        TlsConnection tls = new TlsConnection(engine, protocol -> {
            handler.protocol.complete(protocol);
            return handler;
        });
        group.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), Duration.ofSeconds(10),
                ChannelOptions.defaults(), tls);
        return tls;
    }

    @Test
    void handshakeChoosesTheHandlerByAlpnAndCarriesPlaintextBothWays() throws Exception {
        int port = startEchoServer();
        Collecting handler = new Collecting();
        TlsConnection tls = connect("localhost", port, handler);
        tls.handshake().get(30, TimeUnit.SECONDS);
        assertThat(handler.protocol.get(), is("h2"));
        byte[] sent = new byte[1024 * 1024];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 31 + 7);
        }
        tls.write(ByteBuffer.wrap(sent));
        handler.expect(sent.length).get(30, TimeUnit.SECONDS);
        assertThat(handler.bytes(), is(sent));
    }

    @Test
    void hostNameMismatchFailsTheHandshake() throws Exception {
        int port = startEchoServer();
        Collecting handler = new Collecting();
        TlsConnection tls = connect("127.0.0.1", port, handler);
        ExecutionException error = assertThrows(ExecutionException.class, () -> tls.handshake().get(30, TimeUnit.SECONDS));
        assertThat(error.getCause(), instanceOf(SSLHandshakeException.class));
        assertThat("the application handler was never opened", handler.protocol.isDone(), is(false));
    }

    /** Collects the plaintext it is given. */
    private static final class Collecting implements ConnectionHandler {
        final CompletableFuture<String> protocol = new CompletableFuture<>();
        private final ByteArrayOutputStream received = new ByteArrayOutputStream();
        private final CompletableFuture<Void> full = new CompletableFuture<>();
        private volatile int expected = Integer.MAX_VALUE;

        /** Completes once {@code bytes} arrived in total. */
        CompletableFuture<Void> expect(int bytes) {
            expected = bytes;
            if (size() >= bytes) {
                full.complete(null);
            }
            return full;
        }

        @Override
        public void onOpen(Connection connection) {
        }

        @Override
        public void onRead(Connection connection, ByteBuffer input) {
            byte[] bytes = new byte[input.remaining()];
            input.get(bytes);
            synchronized (received) {
                received.writeBytes(bytes);
            }
            if (size() >= expected) {
                full.complete(null);
            }
        }

        @Override
        public void onClosed(Connection connection, Throwable cause) {
        }

        int size() {
            synchronized (received) {
                return received.size();
            }
        }

        byte[] bytes() {
            synchronized (received) {
                return received.toByteArray();
            }
        }
    }
}
