package io.ringkv.net.tls;

import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import io.ringkv.net.ExclusiveOutbound;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS over a plain {@link Connection}, with an {@link SSLEngine}: it is the plain connection's
 * handler, and the application's {@link Connection}. The handshake runs first; once it is done
 * the negotiated ALPN protocol picks the application handler ({@code handlers}), which is then
 * opened and sees only plaintext.
 *
 * <p>Writing: {@link #enqueue} only queues plaintext in the {@link RecordWriter}; a flush wraps
 * everything queued into as few records as possible under the writer's lock, enqueues them on the
 * plain connection as one group, and writes the socket ({@link Connection#flush}) after the lock
 * is released. The plain connection's queue is {@linkplain Connection#claimOutbound claimed} in
 * {@link #onOpen}: records go in through that handle only, and the plain connection refuses any
 * other writer. {@link #writeUrgent} goes ahead of every group not yet wrapped; records already
 * wrapped keep their place (their sequence numbers fix it).
 *
 * <p>Reading: records are decrypted straight from the plain connection's read buffer into a
 * {@link PlaintextArena} that the application reads in place and may {@link #retain} slices of
 * without a copy (the decryption is the only copy).
 * A record cut by the end of a read is kept in a per-connection buffer ({@code netIn}) until it is
 * whole, so a read allocates nothing.
 *
 * <p>Handshake: delegated tasks (certificate checks, signatures) run on {@code tasks}, never on
 * the loop; the plain connection stops reading meanwhile, and the handshake resumes on the loop
 * when they are done. Threading: handler callbacks and handshake steps run on the plain
 * connection's loop, which alone touches {@code plainIn}, {@code netIn} and {@code driving}; writes
 * may come from any thread.
 */
public final class TlsConnection implements Connection, ConnectionHandler {
    private static final Logger log = LoggerFactory.getLogger(TlsConnection.class);
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** Bound on steps per handshake round, so a misbehaving engine cannot spin the loop. */
    private static final int HANDSHAKE_STEPS_MAX = 64;
    private static final int RECORD_HEADER_BYTES = 5;

    private final SSLEngine engine;
    private final Function<String, ConnectionHandler> handlers;
    private final Executor tasks;
    private final RecordWriter writer;
    private final CompletableFuture<SSLSession> handshake = new CompletableFuture<>();
    private volatile Connection plain;
    /** The plain connection's queue, claimed for the {@link RecordWriter} when it opens; nobody else enqueues there. */
    private volatile ExclusiveOutbound outbound;
    private volatile ConnectionHandler application;
    private volatile boolean suspended;
    private volatile boolean tasksRunning;
    private volatile boolean closing;
    private volatile RuntimeException taskFailure;
    // Loop-confined below.
    private final PlaintextArena plainIn;
    private ByteBuffer netIn;
    private boolean driving;

    /**
     * Runs delegated handshake tasks on a small executor shared by the JVM's TLS connections.
     *
     * @param engine   configured (client or server mode, parameters, ALPN offers or selector) and not yet started
     * @param handlers the application handler for the negotiated ALPN protocol ("" when none)
     */
    public TlsConnection(SSLEngine engine, Function<String, ConnectionHandler> handlers) {
        this(engine, handlers, DelegatedTasks.shared());
    }

    /**
     * @param tasks runs the engine's delegated tasks (CPU work: certificate checks, signatures);
     *              if it refuses one, the task runs on the loop
     */
    public TlsConnection(SSLEngine engine, Function<String, ConnectionHandler> handlers, Executor tasks) {
        this.engine = engine;
        this.handlers = handlers;
        this.tasks = tasks;
        this.writer = new RecordWriter(engine);
        this.plainIn = new PlaintextArena(engine.getSession().getApplicationBufferSize());
    }

    /** Completes with the session once the handshake finished and the application handler was opened. */
    public CompletableFuture<SSLSession> handshake() {
        return handshake;
    }

    // ---- ConnectionHandler of the plain connection (loop) ----

    @Override
    public void onOpen(Connection connection) {
        plain = connection;
        outbound = connection.claimOutbound(); // a second producer on this connection fails here, at wiring
        try {
            engine.beginHandshake();
            advanceHandshake();
        } catch (IOException e) {
            fail(e);
        }
    }

    @Override
    public void onRead(Connection connection, ByteBuffer input) {
        try {
            readRecords(input);
        } catch (IOException e) {
            fail(e);
        }
    }

    /** Unwraps whole records from {@code netIn} and then {@code input} while the reader wants them. */
    private void readRecords(ByteBuffer input) throws IOException {
        deliverPlaintext(); // what the application left last time comes first
        while (!suspended && !tasksRunning) {
            ByteBuffer source = input;
            if (netIn != null && netIn.position() > 0) {
                topUp(input); // the record cut by the last read continues with these bytes
                netIn.flip();
                source = netIn;
            }
            SSLEngineResult result = source.hasRemaining() ? unwrap(source) : null;
            if (source == netIn) {
                netIn.compact();
            }
            if (result == null) {
                return;
            }
            switch (result.getStatus()) {
                case BUFFER_UNDERFLOW -> {
                    if (source == input) {
                        keepPartialRecord(input);
                        return;
                    }
                    if (!input.hasRemaining()) {
                        return;
                    }
                    continue; // netIn had only the header: the rest of the record is taken next
                }
                case CLOSED -> {
                    input.position(input.limit());
                    return;
                }
                default -> {
                }
            }
            if (!handshake.isDone() || result.getHandshakeStatus() != HandshakeStatus.NOT_HANDSHAKING) {
                if (handshake.isDone()) {
                    refuseRenegotiation();
                }
                advanceHandshake(); // also TLS 1.3 post-handshake messages (tickets, key updates)
            }
            deliverPlaintext();
        }
    }

    /**
     * A server's TLS 1.2 session has no handshake message after the handshake but a client's
     * renegotiation (a new ClientHello): refused, as RFC 9113 §9.2.1 requires for HTTP/2 and as
     * is wise for any server (each renegotiation costs it a full handshake of CPU). TLS 1.3 has
     * no renegotiation; its post-handshake messages (key updates) go on.
     */
    private void refuseRenegotiation() throws SSLException {
        if (!engine.getUseClientMode() && !"TLSv1.3".equals(engine.getSession().getProtocol())) {
            throw new SSLException("TLS renegotiation refused (" + engine.getSession().getProtocol() + ")");
        }
    }

    /** Moves the start of a record cut by the end of the read into {@code netIn}, so the read buffer is free. */
    private void keepPartialRecord(ByteBuffer input) {
        int packetBytes = engine.getSession().getPacketBufferSize();
        if (netIn == null || netIn.capacity() < Math.max(packetBytes, input.remaining())) {
            netIn = ByteBuffer.allocate(Math.max(packetBytes, input.remaining()));
        }
        netIn.put(input);
    }

    /**
     * Appends from {@code input} to {@code netIn} the rest of the one record whose start it holds
     * (RFC 8446 §5.1: a 5-byte header ending with the length), so that netIn empties with that
     * record and later records are unwrapped from the read buffer in place.
     */
    private void topUp(ByteBuffer input) {
        int have = netIn.position();
        int want = have < RECORD_HEADER_BYTES ? RECORD_HEADER_BYTES
                : RECORD_HEADER_BYTES + ((netIn.get(3) & 0xff) << 8 | (netIn.get(4) & 0xff));
        if (want > netIn.capacity()) {
            netIn = ByteBuffer.allocate(want).put(netIn.flip());
        }
        int take = Math.min(want - have, input.remaining());
        if (take > 0) {
            netIn.put(have, input, input.position(), take);
            netIn.position(have + take);
            input.position(input.position() + take);
        }
    }

    @Override
    public void onInputClosed(Connection connection) {
        ConnectionHandler app = application;
        if (app != null) {
            app.onInputClosed(this);
        } else {
            connection.closeAfterFlush();
        }
    }

    @Override
    public void onWritable(Connection connection) {
        ConnectionHandler app = application;
        if (app != null) {
            app.onWritable(this);
        }
    }

    @Override
    public void onClosed(Connection connection, Throwable cause) {
        failHandshake(cause != null ? cause : new SSLException("connection closed during the TLS handshake"));
        writer.dropQueued();
        ConnectionHandler app = application;
        if (app != null) {
            app.onClosed(this, cause); // only an opened application handler learns of the close
        }
    }

    private SSLEngineResult unwrap(ByteBuffer input) throws SSLException {
        while (true) {
            SSLEngineResult result = engine.unwrap(input, plainIn.space());
            plainIn.filled();
            if (result.getStatus() != SSLEngineResult.Status.BUFFER_OVERFLOW) {
                return result;
            }
            plainIn.grow(engine.getSession().getApplicationBufferSize());
        }
    }

    private void deliverPlaintext() {
        ConnectionHandler app = application;
        if (app != null) {
            plainIn.deliver(app, this); // bytes the application left are presented again, ahead of newer ones
        }
    }

    /** Decrypted bytes are not copied for a handler that keeps them: see {@link PlaintextArena}. Loop thread. */
    @Override
    public ByteBuffer retain(ByteBuffer slice) {
        return plain.loop().inLoop() ? plainIn.retain(slice) : Connection.super.retain(slice);
    }

    /** Loop: drives the handshake until the engine waits for the peer or a task, or is done. */
    private void advanceHandshake() throws IOException {
        driving = true;
        try {
            for (int step = 0; step < HANDSHAKE_STEPS_MAX; step++) {
                HandshakeStatus status = engine.getHandshakeStatus();
                switch (status) {
                    case NEED_TASK -> {
                        startDelegatedTasks();
                        return;
                    }
                    case NEED_WRAP -> {
                        writer.wrapQueued(outbound, false);
                        plain.flush(); // handshake records go out now (no lock held here)
                    }
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                        return;
                    }
                    case FINISHED, NOT_HANDSHAKING -> {
                        openApplication();
                        return;
                    }
                }
            }
        } finally {
            driving = false;
        }
        throw new SSLException("TLS handshake did not settle within " + HANDSHAKE_STEPS_MAX + " steps");
    }

    /**
     * Loop: hands the engine's tasks to the executor and stops reading until they are done (the
     * engine can take no record meanwhile); {@link #tasksDone} resumes on the loop.
     */
    private void startDelegatedTasks() {
        if (tasksRunning) {
            return;
        }
        tasksRunning = true;
        plain.suspendReads();
        Runnable run = () -> {
            try {
                for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
                    task.run(); // the engine keeps a handshake failure and throws it from its next wrap/unwrap
                }
            } catch (RuntimeException e) {
                taskFailure = e; // anything else: tasksDone fails the connection with it
            } finally {
                try {
                    plain.loop().execute(this::tasksDone);
                } catch (RejectedExecutionException e) {
                    log.debug("loop of {} stopped before the TLS tasks finished", plain, e);
                }
            }
        };
        try {
            tasks.execute(run);
        } catch (RejectedExecutionException e) {
            log.debug("TLS task executor refused; running the tasks of {} on the loop", plain);
            run.run();
        }
    }

    /** Loop: the delegated tasks finished; the handshake and the reads go on. */
    private void tasksDone() {
        tasksRunning = false;
        RuntimeException failure = taskFailure;
        if (failure != null) {
            fail(new SSLException("TLS delegated task failed", failure));
            return;
        }
        if (!suspended) {
            plain.resumeReads(); // presents the bytes kept meanwhile
        }
        try {
            advanceHandshake();
            readRecords(EMPTY); // records already in netIn
            flush(); // plaintext the engine could not wrap while it waited
        } catch (IOException e) {
            fail(e);
        }
    }

    private void openApplication() {
        if (application != null || handshake.isDone()) {
            return;
        }
        String protocol = engine.getApplicationProtocol();
        ConnectionHandler app = handlers.apply(protocol == null ? "" : protocol);
        application = app;
        app.onOpen(this);
        handshake.complete(engine.getSession());
    }

    private void fail(IOException cause) {
        log.debug("TLS failure on {}", plain, cause);
        failHandshake(cause);
        writer.dropQueued();
        plain.abort(cause);
    }

    private void failHandshake(Throwable cause) {
        if (!handshake.isDone()) {
            handshake.completeExceptionally(cause);
        }
    }

    // ---- Connection for the application (any thread) ----

    /** The ALPN protocol the server selected, "" for none (valid once {@link #handshake()} completed). */
    public String applicationProtocol() {
        String protocol = engine.getApplicationProtocol();
        return protocol == null ? "" : protocol;
    }

    /** The negotiated session (valid once {@link #handshake()} completed). */
    public SSLSession session() {
        return engine.getSession();
    }

    @Override
    public EventLoop loop() {
        return plain.loop();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return plain.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        return plain.localAddress();
    }

    @Override
    public boolean write(ByteBuffer... group) {
        boolean accepted = enqueue(group);
        flush();
        return accepted;
    }

    /** Queues the plaintext; it is wrapped at the next flush, together with whatever else is queued then. */
    @Override
    public boolean enqueue(ByteBuffer... group) {
        if (closing || !plain.isOpen()) {
            return false;
        }
        writer.add(group, false);
        return true;
    }

    /** Ahead of every group not yet wrapped; behind records already wrapped (their sequence numbers fix their place). */
    @Override
    public boolean writeUrgent(ByteBuffer... group) {
        if (closing || !plain.isOpen()) {
            return false;
        }
        writer.add(group, true);
        flush();
        return true;
    }

    @Override
    public void flush() {
        wrapAndFlush(false);
    }

    private void wrapAndFlush(boolean close) {
        Connection connection = plain;
        try {
            if (writer.wrapQueued(outbound, close)) {
                resumeHandshakeOnLoop();
            }
        } catch (SSLException e) {
            fail(e);
            return;
        }
        if (close) {
            connection.closeAfterFlush(); // writes the records, then shuts the output down
        } else {
            connection.flush();
            writer.reclaimWritten(outbound);
        }
    }

    /** A wrap reported a handshake status (tasks to run, a post-handshake message): the loop looks at it. */
    private void resumeHandshakeOnLoop() {
        EventLoop loop = plain.loop();
        if (loop.inLoop() && driving) {
            return; // advanceHandshake re-reads the status itself
        }
        try {
            loop.execute(() -> {
                try {
                    advanceHandshake();
                } catch (IOException e) {
                    fail(e);
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("loop of {} stopped", plain, e);
        }
    }

    @Override
    public long queuedBytes() {
        return writer.queuedBytes() + plain.queuedBytes();
    }

    @Override
    public boolean isWritable() {
        return plain.isWritable();
    }

    /**
     * The flag changes on the loop only, in the order the loop runs the two calls: a resume from
     * another thread that comes just before the loop's own suspend must run after it, not be
     * undone by it (the resume would be lost and the connection never read again).
     */
    @Override
    public void suspendReads() {
        if (plain.loop().inLoop()) {
            suspendOnLoop();
            return;
        }
        try {
            plain.loop().execute(this::suspendOnLoop);
        } catch (RejectedExecutionException e) {
            log.debug("loop of {} stopped", plain, e);
        }
    }

    private void suspendOnLoop() {
        suspended = true;
        plain.suspendReads();
    }

    @Override
    public void resumeReads() {
        try {
            plain.loop().execute(this::resumeOnLoop);
        } catch (RejectedExecutionException e) {
            log.debug("loop of {} stopped", plain, e);
        }
    }

    /**
     * Loop: plaintext the application left, or a whole record kept in {@code netIn}, is not among
     * the plain connection's kept bytes, which it presents again on resume: present it from here,
     * first (it comes before them). A task, as resumeReads may be called from inside onRead.
     */
    private void resumeOnLoop() {
        suspended = false;
        if (!plain.isOpen()) {
            return;
        }
        if (!tasksRunning) {
            plain.resumeReads();
        }
        if (plainIn.hasPlaintext() || (netIn != null && netIn.position() > 0)) {
            onRead(plain, EMPTY);
        }
    }

    /** RFC 8446 §6.1: what is queued, then close_notify, then the orderly close of the plain connection. */
    @Override
    public void closeAfterFlush() {
        closing = true;
        wrapAndFlush(true);
    }

    @Override
    public void abort(Throwable cause) {
        closing = true;
        writer.dropQueued();
        plain.abort(cause);
    }

    @Override
    public boolean isOpen() {
        return !closing && plain.isOpen();
    }

    @Override
    public String toString() {
        return "TLS(" + plain + ")";
    }
}
