package io.ringkv.http.client.internal;

import io.ringkv.http.h1.BodyChunk;
import io.ringkv.http.h1.H1Limits;
import io.ringkv.http.h1.H1ResponseEvent;
import io.ringkv.http.h1.InterimResponse;
import io.ringkv.http.h1.MalformedResponseException;
import io.ringkv.http.h1.MessageEnd;
import io.ringkv.http.h1.ResponseParser;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTP/1.1 connection of the client: carries one exchange at a time (no pipelining), then goes
 * back to its {@link ConnectionPool} if both sides allow keep-alive (RFC 9112 §9.3).
 *
 * <p>Threading: the {@link ConnectionHandler} callbacks run on the connection's event loop. The
 * parser is used by the loop while an exchange runs and by the thread that starts the next one
 * (see {@link #startNow}); {@code exchange} (volatile) hands it from one to the other.
 */
final class H1Connection implements ConnectionHandler, OpenConnections.Member {
    private static final Logger log = LoggerFactory.getLogger(H1Connection.class);
    /**
     * Heads as large as the JDK's client takes; bodies are not limited in size by the client (the
     * application's subscriber decides).
     */
    private static final H1Limits LIMITS = ResponseHeadLimits.HTTP1;

    private final Route route;
    private final ConnectionPool pool;
    private final OpenConnections openConnections;
    private final ResponseParser parser = new ResponseParser(LIMITS);
    private volatile Connection connection;
    private volatile H1Exchange exchange;
    private final IdleExpiry idleExpiry;
    /**
     * Exchanges started on this connection. Touched only by the thread starting an exchange;
     * starts are ordered by the pool's hand-out (a monitor), which also orders them after the
     * previous exchange's last use of the parser.
     */
    private int exchangesStarted;
    /**
     * The header section of the request being written, refilled per request (it is encoded into
     * bytes at once and not kept). Used by the thread that starts an exchange, under the same
     * ordering as {@link #exchangesStarted}.
     */
    private final io.ringkv.http.Headers requestFields = new io.ringkv.http.Headers(8);
    /** After {@code 101 Switching Protocols}: the handler every later callback goes to. */
    private volatile ConnectionHandler switchedTo;

    H1Connection(Route route, ConnectionPool pool, OpenConnections openConnections) {
        this.route = route;
        this.pool = pool;
        this.openConnections = openConnections;
        this.idleExpiry = new IdleExpiry(pool.idleTimeout(), () -> pool.expire(this));
    }

    @Override
    public Route route() {
        return route;
    }

    @Override
    public java.net.http.HttpClient.Version version() {
        return java.net.http.HttpClient.Version.HTTP_1_1;
    }

    /** One while an exchange runs (from its start until its response ended), else zero; any thread. */
    @Override
    public int exchangesInFlight() {
        return exchange != null ? 1 : 0;
    }

    Connection connection() {
        return connection;
    }

    /** The request header builder of this connection (see {@link #requestFields}); only while starting an exchange. */
    io.ringkv.http.Headers requestFields() {
        return requestFields;
    }

    boolean isOpen() {
        Connection open = connection;
        return open != null && open.isOpen();
    }

    /** Entered the pool's idle list. */
    void markIdle() {
        idleExpiry.idle(connection.loop());
    }

    /** Left the pool's idle list to carry an exchange. */
    void markBusy() {
        idleExpiry.busy();
    }

    /**
     * Runs {@code next} on this connection: the parser learns the method, then the request goes
     * out, from the calling thread when it can (no hand-off to the loop, no selector wake-up).
     * On the connection's own loop it is deferred to a task, because the loop may be inside
     * {@link #onRead} for the previous exchange, whose end handed the connection over.
     */
    void start(H1Exchange next) {
        if (connection.loop().inLoop()) {
            connection.loop().execute(() -> startNow(next));
        } else {
            startNow(next);
        }
    }

    /**
     * The connection is idle, so the loop does not touch the parser: it parses only while an
     * exchange is published, and {@link #exchange} is published after the parser was reset.
     */
    private void startNow(H1Exchange next) {
        if (exchangesStarted++ > 0) {
            next.onReusedConnection();
        }
        parser.begin(next.method());
        exchange = next;
        if (!connection.isOpen()) {
            next.onFailure(new IOException("connection closed before the request was sent"));
            return;
        }
        next.sendRequest();
    }

    /**
     * Any thread, once per exchange ({@link TwoPartCompletion} picks the one caller): the exchange
     * is complete; keep the connection if {@code reusable}.
     */
    void finished(H1Exchange done, boolean reusable) {
        if (exchange != done) {
            return;
        }
        exchange = null;
        if (reusable && connection.isOpen()) {
            pool.release(this);
        } else {
            connection.closeAfterFlush();
        }
    }

    void abort(H1Exchange target, Throwable cause) {
        if (exchange == target) {
            connection.abort(cause);
        }
        target.onFailure(cause);
    }

    @Override
    public void onOpen(Connection opened) {
        this.connection = opened;
        openConnections.opened(this);
    }

    @Override
    public void onRead(Connection source, ByteBuffer input) {
        ConnectionHandler next = switchedTo;
        if (next != null) {
            next.onRead(source, input);
            return;
        }
        H1Exchange current = exchange;
        if (current == null) {
            // Bytes on an idle connection answer nothing we sent (a server's parting 408, say):
            // the connection cannot carry a request any more. The parser is not ours to touch
            // here: a thread may be starting an exchange on it right now.
            if (input.hasRemaining()) {
                input.position(input.limit());
                source.abort(new IOException("unsolicited bytes on an idle connection to " + route.authority()));
            }
            return;
        }
        if (input.hasRemaining()) {
            current.onResponseBytes();
        }
        boolean ended = false;
        try {
            H1ResponseEvent event;
            while ((event = parser.next(input)) != null) {
                if (event instanceof io.ringkv.http.h1.ResponseHead head && head.status() == 101
                        && current.offersUpgrade()) {
                    switchProtocols(source, current, head, input);
                    return;
                }
                if (event instanceof MessageEnd) {
                    ended = true;
                    break;
                }
                dispatch(current, event);
            }
        } catch (MalformedResponseException e) {
            log.debug("{} malformed response: {}", route, e.reason());
            source.abort(e);
            current.onFailure(e);
            return;
        }
        if (ended) {
            // After the parser's last use: the end hands the connection back to the pool, and
            // from then on another thread may start the next exchange and reset the parser.
            current.onEnd();
        }
        current.publishHead();
    }

    /**
     * RFC 7540 §3.2: after the 101 the connection speaks HTTP/2; it leaves the HTTP/1.1 pool and
     * the bytes behind the 101 (the server's SETTINGS, maybe more) go to the new handler.
     */
    private void switchProtocols(Connection source, H1Exchange current, io.ringkv.http.h1.ResponseHead head,
            ByteBuffer input) {
        if (!H2cUpgrade.switchesToH2c(head)) {
            IOException error = new java.net.ProtocolException("server " + route.authority()
                    + " answered Upgrade: h2c with 101 to " + head.headers().first("Upgrade").orElse("no protocol"));
            current.onFailure(error); // before the abort, which reports its own wrapping of the cause
            source.abort(error);
            return;
        }
        exchange = null;
        pool.remove(this);
        ConnectionHandler next = current.switchProtocols(source);
        switchedTo = next;
        openConnections.closed(this); // the socket stays open and counted, as the HTTP/2 connection now
        log.debug("{} switched to HTTP/2 by Upgrade: h2c", route);
        if (input.hasRemaining()) {
            next.onRead(source, input);
        }
    }

    private void dispatch(H1Exchange current, H1ResponseEvent event) {
        switch (event) {
            case InterimResponse interim -> {
                if (interim.status() == 100) {
                    current.onContinue();
                }
            }
            case io.ringkv.http.h1.ResponseHead head -> current.onHead(head);
            case BodyChunk chunk -> current.onBody(chunk.data());
            case MessageEnd end -> throw new IllegalStateException("the end is handled by onRead");
        }
    }

    @Override
    public void onInputClosed(Connection source) {
        ConnectionHandler next = switchedTo;
        if (next != null) {
            next.onInputClosed(source);
            return;
        }
        H1Exchange current = exchange;
        if (current == null) {
            source.closeAfterFlush(); // idle: nothing to finish, and the parser is not ours (see onRead)
            return;
        }
        try {
            MessageEnd end = parser.endOfInput();
            if (end != null) {
                current.onEnd();
            }
        } catch (MalformedResponseException e) {
            current.onFailure(new IOException("connection closed before the response was complete", e));
        }
        source.closeAfterFlush();
    }

    @Override
    public void onWritable(Connection source) {
        ConnectionHandler next = switchedTo;
        if (next != null) {
            next.onWritable(source);
            return;
        }
        H1Exchange current = exchange;
        if (current != null) {
            current.onWritable();
        }
    }

    @Override
    public void onClosed(Connection source, Throwable cause) {
        ConnectionHandler next = switchedTo;
        if (next != null) {
            next.onClosed(source, cause); // the pool let go of this connection at the switch
            return;
        }
        pool.remove(this);
        openConnections.closed(this);
        H1Exchange current = exchange;
        if (current != null) {
            current.onFailure(cause != null ? cause : new IOException("connection closed by " + route.authority()));
        }
    }

    @Override
    public String toString() {
        Connection open = connection;
        return "H1Connection[" + route.authority() + (open == null ? "" : " " + open.localAddress()) + "]";
    }
}
