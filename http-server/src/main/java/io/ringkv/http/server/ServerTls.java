package io.ringkv.http.server;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * TLS for an {@link HttpServer}: every accepted connection is wrapped in TLS, and the protocol is
 * the one ALPN negotiated (RFC 7301): {@code h2} when the client offers it and it is offered here,
 * else HTTP/1.1 ({@code http/1.1}, or no ALPN at all). A client that offers ALPN but none of
 * these protocols gets the {@code no_application_protocol} alert (RFC 7301 §3.2).
 *
 * <p>Whatever {@code context} enables, only TLS 1.3 and TLS 1.2 are spoken, and on TLS 1.2 only
 * ECDHE key exchange with an AEAD cipher (AES-GCM, ChaCha20-Poly1305): every such suite is
 * allowed for HTTP/2 by RFC 9113 §9.2.2 (none is on its Appendix A list) and all of them have
 * forward secrecy, so one policy serves both protocols and no client has to be turned away
 * after ALPN chose h2. TLS 1.2 renegotiation is refused (RFC 9113 §9.2.1).
 *
 * @param context              holds the server's key and certificate chain
 *                             (e.g. {@code TlsCredentials.serverContext()} in module net)
 * @param applicationProtocols what ALPN may select, in the server's order of preference: a
 *                             non-empty subset of {@value #ALPN_H2} and {@value #ALPN_HTTP_1_1}
 * @param handshakeTimeout     a connection whose TLS handshake has not finished this long after
 *                             the connect is closed: a client that stalls its handshake holds a
 *                             connection and a handshake slot for no longer than this
 * @param handshakesMax        handshakes in progress at once; a connection accepted beyond it is
 *                             closed at once. Bounds the memory and the handshake CPU (key
 *                             exchange, signatures, on the JVM's TLS task threads) that a burst
 *                             of new connections can take
 * @param clientAuth           whether the server asks clients for a certificate; the chain is
 *                             verified by {@code context}'s trust managers, and a verified one
 *                             reaches handlers as {@link Request#peerCertificates()}
 */
public record ServerTls(SSLContext context, List<String> applicationProtocols, Duration handshakeTimeout,
                        int handshakesMax, ClientAuth clientAuth) {

    /** Whether the TLS handshake asks the client for a certificate. */
    public enum ClientAuth {
        /** Not asked: no client certificate reaches handlers. */
        NONE,
        /** Asked; a client may send none, but one it sends must verify or the handshake fails. */
        WANT,
        /** Required: a client without a certificate that verifies fails the handshake. */
        NEED
    }

    public static final String ALPN_H2 = "h2";
    public static final String ALPN_HTTP_1_1 = "http/1.1";
    public static final Duration HANDSHAKE_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
    public static final int HANDSHAKES_MAX_DEFAULT = 512;

    public ServerTls {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(clientAuth, "clientAuth");
        applicationProtocols = List.copyOf(applicationProtocols);
        if (applicationProtocols.isEmpty() || applicationProtocols.stream()
                .anyMatch(p -> !p.equals(ALPN_H2) && !p.equals(ALPN_HTTP_1_1))
                || applicationProtocols.stream().distinct().count() != applicationProtocols.size()) {
            throw new IllegalArgumentException("applicationProtocols must be a non-empty list of distinct protocols among "
                    + ALPN_H2 + " and " + ALPN_HTTP_1_1 + ", got " + applicationProtocols);
        }
        if (handshakeTimeout == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout must be positive, got " + handshakeTimeout);
        }
        if (handshakesMax < 1) {
            throw new IllegalArgumentException("handshakesMax must be at least 1, got " + handshakesMax);
        }
    }

    /** Without client certificates. */
    public ServerTls(SSLContext context, List<String> applicationProtocols, Duration handshakeTimeout, int handshakesMax) {
        this(context, applicationProtocols, handshakeTimeout, handshakesMax, ClientAuth.NONE);
    }

    /** h2 preferred, then HTTP/1.1; the default handshake timeout and bound. */
    public static ServerTls of(SSLContext context) {
        return new ServerTls(context, List.of(ALPN_H2, ALPN_HTTP_1_1), HANDSHAKE_TIMEOUT_DEFAULT, HANDSHAKES_MAX_DEFAULT);
    }

    public ServerTls withApplicationProtocols(List<String> protocols) {
        return new ServerTls(context, protocols, handshakeTimeout, handshakesMax, clientAuth);
    }

    public ServerTls withHandshakeTimeout(Duration timeout) {
        return new ServerTls(context, applicationProtocols, timeout, handshakesMax, clientAuth);
    }

    public ServerTls withHandshakesMax(int max) {
        return new ServerTls(context, applicationProtocols, handshakeTimeout, max, clientAuth);
    }

    public ServerTls withClientAuth(ClientAuth auth) {
        return new ServerTls(context, applicationProtocols, handshakeTimeout, handshakesMax, auth);
    }
}
