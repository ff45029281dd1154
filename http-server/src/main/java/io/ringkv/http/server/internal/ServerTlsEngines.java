package io.ringkv.http.server.internal;

import io.ringkv.http.server.ServerTls;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Makes the server-mode {@link SSLEngine} of each accepted connection: the TLS versions and
 * cipher suites {@link ServerTls} promises (TLS 1.3; TLS 1.2 with ECDHE and an AEAD cipher only,
 * in the server's order), and the ALPN choice by the server's preference. The policy is computed
 * once, from what the context enables, at server start: a context that enables nothing it allows
 * fails the start rather than every handshake.
 *
 * <p>Threading: immutable; {@link #newEngine} may be called from any thread.
 */
final class ServerTlsEngines {
    static final List<String> VERSIONS = List.of("TLSv1.3", "TLSv1.2");

    private final ServerTls tls;
    private final SSLParameters parameters;
    private final BiFunction<SSLEngine, List<String>, String> alpnSelector;

    ServerTlsEngines(ServerTls tls) {
        this.tls = tls;
        SSLParameters enabled = tls.context().getDefaultSSLParameters();
        String[] versions = Arrays.stream(enabled.getProtocols()).filter(VERSIONS::contains).toArray(String[]::new);
        String[] suites = Arrays.stream(enabled.getCipherSuites()).filter(ServerTlsEngines::allowed).toArray(String[]::new);
        if (versions.length == 0 || suites.length == 0) {
            throw new IllegalArgumentException("the TLS context enables no TLS 1.3 or TLS 1.2 ECDHE+AEAD cipher suite "
                    + "(enabled versions " + Arrays.toString(enabled.getProtocols()) + ")");
        }
        this.parameters = new SSLParameters(suites, versions);
        parameters.setUseCipherSuitesOrder(true);
        switch (tls.clientAuth()) {
            case NONE -> { }
            case WANT -> parameters.setWantClientAuth(true);
            case NEED -> parameters.setNeedClientAuth(true);
        }
        List<String> offered = tls.applicationProtocols();
        // RFC 7301 §3.2: the server's first protocol the client also offers; none in common
        // (null) makes the engine send the no_application_protocol alert.
        this.alpnSelector = (engine, clientOffers) -> offered.stream().filter(clientOffers::contains).findFirst().orElse(null);
    }

    /**
     * TLS 1.3's suites (all AEAD), and TLS 1.2's with ephemeral ECDH and AES-GCM or
     * ChaCha20-Poly1305: forward secrecy, and none on RFC 9113's Appendix A list. Static RSA,
     * finite-field DHE, CBC and the renegotiation signalling value are left out.
     */
    static boolean allowed(String suite) {
        if (suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_")) {
            return true;
        }
        return suite.startsWith("TLS_ECDHE_") && (suite.contains("_GCM_") || suite.endsWith("_CHACHA20_POLY1305_SHA256"));
    }

    SSLEngine newEngine() {
        SSLEngine engine = tls.context().createSSLEngine();
        engine.setUseClientMode(false);
        engine.setSSLParameters(parameters);
        engine.setHandshakeApplicationProtocolSelector(alpnSelector);
        return engine;
    }

    Duration handshakeTimeout() {
        return tls.handshakeTimeout();
    }

    int handshakesMax() {
        return tls.handshakesMax();
    }
}
