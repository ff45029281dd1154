package io.ringkv.http.server.internal;

import io.ringkv.http.h2.Preface;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.ScheduledTask;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Picks a new connection's protocol from its first bytes: the HTTP/2 client preface
 * ({@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n}, RFC 9113 §3.4, h2c by prior knowledge) selects an
 * {@link Http2Session}; anything else an {@link Http1Session}. From then on every callback goes
 * to the chosen session, until an HTTP/1.1 session accepts {@code Upgrade: h2c} and hands the
 * connection to an HTTP/2 session ({@link #upgrade}); the bytes after the upgrade request go to
 * that session. Until the choice, a connection that sends nothing is closed after the header
 * read timeout.
 *
 * <p>Threading: confined to the connection's event loop, like every {@link ConnectionHandler}.
 */
final class ProtocolSelector implements ConnectionHandler {
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerContext context;
    private Connection connection;
    private ConnectionHandler chosen;
    private ScheduledTask silenceTimer;

    ProtocolSelector(ServerContext context) {
        this.context = context;
    }

    @Override
    public void onOpen(Connection opened) {
        connection = opened;
        silenceTimer = opened.loop().schedule(opened::closeAfterFlush, context.config().headerReadTimeout());
    }

    @Override
    public void onRead(Connection from, ByteBuffer input) {
        if (chosen == null) {
            Boolean h2 = isPreface(input);
            if (h2 == null) {
                return; // a prefix of the preface so far: wait for more bytes, consume none
            }
            silenceTimer.cancel();
            chosen = h2 ? new Http2Session(context) : new Http1Session(context, this);
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
