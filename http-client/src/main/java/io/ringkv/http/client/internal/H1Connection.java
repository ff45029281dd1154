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
 * <p>Threading: the {@link ConnectionHandler} callbacks and the parser are confined to the
 * connection's event loop. {@link #start} may be called from any thread; it moves to the loop.
 * {@code exchange} is written by {@code start} (on the loop) and read on the loop.
 */
final class H1Connection implements ConnectionHandler {
    private static final Logger log = LoggerFactory.getLogger(H1Connection.class);
    /** Responses are not limited in size by the client; the application's subscriber decides. */
    private static final H1Limits LIMITS = new H1Limits(
            H1Limits.defaults().requestLineBytesMax(), H1Limits.defaults().headerBlockBytesMax(),
            H1Limits.defaults().headerCountMax(), Long.MAX_VALUE);

    private final Route route;
    private final ConnectionPool pool;
    private final ResponseParser parser = new ResponseParser(LIMITS);
    private volatile Connection connection;
    private volatile H1Exchange exchange;
    /** Bumped each time the connection enters or leaves the idle pool; stale expiry timers compare it. */
    private final java.util.concurrent.atomic.AtomicLong idleGeneration = new java.util.concurrent.atomic.AtomicLong();
    /** Exchanges started on this connection; loop-confined. */
    private int exchangesStarted;

    H1Connection(Route route, ConnectionPool pool) {
        this.route = route;
        this.pool = pool;
    }

    Route route() {
        return route;
    }

    Connection connection() {
        return connection;
    }

    boolean isOpen() {
        Connection open = connection;
        return open != null && open.isOpen();
    }

    long markIdle() {
        return idleGeneration.incrementAndGet();
    }

    long idleGeneration() {
        return idleGeneration.get();
    }

    /** Runs {@code next} on this connection: the parser learns the method, then the request goes out. */
    void start(H1Exchange next) {
        connection.loop().execute(() -> {
            exchange = next;
            if (exchangesStarted++ > 0) {
                next.onReusedConnection();
            }
            if (!connection.isOpen()) {
                next.onFailure(new IOException("connection closed before the request was sent"));
                return;
            }
            parser.begin(next.method());
            next.sendRequest();
        });
    }

    /** Any thread: the exchange is complete; keep the connection if {@code reusable}. */
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
    }

    @Override
    public void onRead(Connection source, ByteBuffer input) {
        H1Exchange current = exchange;
        if (current != null && input.hasRemaining()) {
            current.onResponseBytes();
        }
        try {
            H1ResponseEvent event;
            while ((event = parser.next(input)) != null) {
                dispatch(current, event);
            }
        } catch (MalformedResponseException e) {
            log.debug("{} malformed response: {}", route, e.reason());
            source.abort(e);
            if (current != null) {
                current.onFailure(e);
            }
        }
    }

    private void dispatch(H1Exchange current, H1ResponseEvent event) {
        if (current == null) {
            return;
        }
        switch (event) {
            case InterimResponse interim -> {
                if (interim.status() == 100) {
                    current.onContinue();
                }
            }
            case io.ringkv.http.h1.ResponseHead head -> current.onHead(head);
            case BodyChunk chunk -> current.onBody(chunk.data());
            case MessageEnd end -> current.onEnd();
        }
    }

    @Override
    public void onInputClosed(Connection source) {
        H1Exchange current = exchange;
        try {
            MessageEnd end = parser.endOfInput();
            if (end != null && current != null) {
                current.onEnd();
            }
        } catch (MalformedResponseException e) {
            if (current != null) {
                current.onFailure(new IOException("connection closed before the response was complete", e));
            }
        }
        source.closeAfterFlush();
    }

    @Override
    public void onWritable(Connection source) {
        H1Exchange current = exchange;
        if (current != null) {
            current.onWritable();
        }
    }

    @Override
    public void onClosed(Connection source, Throwable cause) {
        pool.remove(this);
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
