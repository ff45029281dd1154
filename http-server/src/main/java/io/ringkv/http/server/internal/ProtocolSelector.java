package io.ringkv.http.server.internal;

import io.ringkv.http.h2.Preface;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.ScheduledTask;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * Picks a connection's protocol and opens its session once the first bytes arrive. On a
 * cleartext server ({@link Mode#CLEARTEXT}) the first bytes decide: the HTTP/2 client preface
 * ({@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n}, RFC 9113 §3.4, h2c by prior knowledge) selects an
 * {@link Http2Session}; anything else an {@link Http1Session}, which may later accept
 * {@code Upgrade: h2c} and hand the connection to an HTTP/2 session ({@link #upgrade}); the bytes
 * after the upgrade request go to that session. Over TLS, ALPN has already decided
 * ({@link Mode#TLS_HTTP_2}, {@link Mode#TLS_HTTP_1_1}) and the bytes are not looked at: a client
 * that negotiated h2 and sends no preface gets HTTP/2's connection error, and an HTTP/1.1 session
 * over TLS never upgrades (h2c is cleartext only). Until the first bytes, a connection that sends
 * nothing is closed after the header read timeout.
 *
 * <p>Threading: confined to the connection's event loop, like every {@link ConnectionHandler}.
 */
final class ProtocolSelector implements ConnectionHandler {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** How the protocol is chosen. */
    enum Mode {
        /** Cleartext: the first bytes choose; HTTP/1.1 may upgrade to h2c. */
        CLEARTEXT,
        /** TLS, ALPN chose h2. */
        TLS_HTTP_2,
        /** TLS, ALPN chose http/1.1 or the client offered no ALPN. */
        TLS_HTTP_1_1
    }

    private final ServerContext context;
    private final Mode mode;
    /** The client's verified certificates (TLS), given to the session; empty on cleartext. */
    private final List<X509Certificate> peerCertificates;
    private Connection connection;
    private ConnectionHandler chosen;
    private ScheduledTask silenceTimer;

    ProtocolSelector(ServerContext context, Mode mode, List<X509Certificate> peerCertificates) {
        this.context = context;
        this.mode = mode;
        this.peerCertificates = peerCertificates;
    }

    /** Whether an HTTP/1.1 session on this connection may switch to h2c by {@code Upgrade}. */
    boolean mayUpgradeToH2c() {
        return mode == Mode.CLEARTEXT;
    }

    @Override
    public void onOpen(Connection opened) {
        connection = opened;
        silenceTimer = opened.loop().schedule(opened::closeAfterFlush, context.config().headerReadTimeout());
    }

    @Override
    public void onRead(Connection from, ByteBuffer input) {
        if (chosen == null) {
            Boolean h2 = switch (mode) {
                case CLEARTEXT -> isPreface(input);
                case TLS_HTTP_2 -> Boolean.TRUE;
                case TLS_HTTP_1_1 -> Boolean.FALSE;
            };
            if (h2 == null) {
                return; // a prefix of the preface so far: wait for more bytes, consume none
            }
            silenceTimer.cancel();
            chosen = h2 ? new Http2Session(context, peerCertificates) : new Http1Session(context, this, peerCertificates);
            chosen.onOpen(connection);
        }
        ConnectionHandler reader;
        do {
            reader = chosen;
            reader.onRead(from, input);
        } while (chosen != reader && input.hasRemaining());
    }

    /** Loop thread, from the HTTP/1.1 session while it reads: the connection speaks HTTP/2 from now on. */
    void upgrade(Http2Session next) {
        chosen = next;
    }

    /** TRUE for the whole preface, FALSE for anything that is not its start, null for a proper prefix of it. */
    static Boolean isPreface(ByteBuffer input) {
        int n = Math.min(input.remaining(), Preface.LENGTH);
        for (int i = 0; i < n; i++) {
            if (input.get(input.position() + i) != PREFACE[i]) {
                return Boolean.FALSE;
            }
        }
        return n == Preface.LENGTH ? Boolean.TRUE : null;
    }

    @Override
    public void onInputClosed(Connection from) {
        if (chosen == null) {
            from.closeAfterFlush();
        } else {
            chosen.onInputClosed(from);
        }
    }

    @Override
    public void onWritable(Connection from) {
        if (chosen != null) {
            chosen.onWritable(from);
        }
    }

    @Override
    public void onClosed(Connection from, Throwable cause) {
        if (silenceTimer != null) {
            silenceTimer.cancel();
        }
        if (chosen != null) {
            chosen.onClosed(from, cause);
        } else {
            context.closedBeforeSession();
        }
    }
}
