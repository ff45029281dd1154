package io.ringkv.http.server.internal;

import io.ringkv.http.server.ServerTls;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.ScheduledTask;
import io.ringkv.net.tls.TlsConnection;
import java.nio.ByteBuffer;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The handler of an accepted connection on a TLS server: passes every callback to the
 * {@link TlsConnection} over it, and watches the handshake. A handshake not finished within
 * {@link ServerTls#handshakeTimeout()} of the connect closes the connection (a client that
 * connects and stalls holds nothing longer); when the handshake ends, either way, its slot in
 * {@link ServerContext}'s handshake bound is freed, and a failure is reported there (counted,
 * logged at most now and then). Once it succeeded, the ALPN result picks the session: HTTP/2 for
 * {@code h2}, HTTP/1.1 otherwise, with no sniffing of the bytes and no {@code Upgrade: h2c}.
 *
 * <p>Threading: confined to the connection's event loop, like every {@link ConnectionHandler};
 * the handshake future completes there too (TlsConnection completes it from its callbacks).
 */
final class TlsHandshakeGuard implements ConnectionHandler {
    private final ServerContext context;
    private final TlsConnection tls;
    private ScheduledTask deadline;
    /** A session took over the connection (and with it the accounting of its close). */
    private boolean sessionOpened;

    TlsHandshakeGuard(ServerContext context, ServerTlsEngines engines) {
        this.context = context;
        this.tls = new TlsConnection(engines.newEngine(), this::sessionFor);
    }

    private ConnectionHandler sessionFor(String alpn) {
        sessionOpened = true;
        return new ProtocolSelector(context, ServerTls.ALPN_H2.equals(alpn)
                ? ProtocolSelector.Mode.TLS_HTTP_2 : ProtocolSelector.Mode.TLS_HTTP_1_1, peerCertificates());
    }

    /**
     * The client's chain as the handshake verified it, read once here (the handshake is done)
     * for every request of the connection; empty when the client sent none, which the server's
     * {@link ServerTls#clientAuth()} allowed or the handshake would have failed.
     */
    private List<X509Certificate> peerCertificates() {
        try {
            List<X509Certificate> chain = new ArrayList<>();
            for (Certificate certificate : tls.session().getPeerCertificates()) {
                if (certificate instanceof X509Certificate x509) {
                    chain.add(x509);
                }
            }
            return List.copyOf(chain);
        } catch (SSLPeerUnverifiedException noCertificate) {
            return List.of();
        }
    }

    @Override
    public void onOpen(Connection plain) {
        deadline = plain.loop().schedule(() -> expire(plain), context.tlsHandshakeTimeout());
        tls.handshake().whenComplete((session, failure) -> {
            deadline.cancel();
            context.handshakeEnded(plain.remoteAddress(), failure);
        });
        tls.onOpen(plain);
    }

    private void expire(Connection plain) {
        if (!tls.handshake().isDone()) {
            plain.abort(new SSLHandshakeException("TLS handshake not finished within " + context.tlsHandshakeTimeout()));
        }
    }

    @Override
    public void onRead(Connection plain, ByteBuffer input) {
        tls.onRead(plain, input);
    }

    @Override
    public void onInputClosed(Connection plain) {
        tls.onInputClosed(plain);
    }

    @Override
    public void onWritable(Connection plain) {
        tls.onWritable(plain);
    }

    @Override
    public void onClosed(Connection plain, Throwable cause) {
        tls.onClosed(plain, cause); // completes a handshake still in progress exceptionally
        if (!sessionOpened) {
            context.closedBeforeSession();
        }
    }
}
