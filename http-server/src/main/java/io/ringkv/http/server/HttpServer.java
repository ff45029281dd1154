package io.ringkv.http.server;

import io.ringkv.http.server.internal.HandlerExecutor;
import io.ringkv.http.server.internal.ServerContext;
import io.ringkv.net.Acceptor;
import io.ringkv.net.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A non-blocking HTTP/1.1 and HTTP/2 server: event loops read and parse, a bounded executor runs
 * the {@link HttpHandler}, and an in-flight budget turns overload into immediate 503s. Cleartext
 * by default (HTTP/1.1 and h2c on one port); with {@link ServerConfig#tls()} every connection is
 * TLS and ALPN picks h2 or HTTP/1.1.
 *
 * <pre>{@code
 * HttpServer server = HttpServer.start(ServerConfig.builder().port(8080).build(), handler);
 * int port = server.port();
 * ...
 * server.shutdown(Duration.ofSeconds(5)); // or close(), which uses config.shutdownGrace()
 * }</pre>
 *
 * <p>Threading: every method may be called from any thread. {@link #shutdown} blocks until the
 * server has stopped; a second call waits for the first.
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);

    /** After a forced close, how long to wait for connections to report closed and for threads to end. */
    static final Duration FORCED_STOP_WAIT = Duration.ofSeconds(2);

    private final ServerConfig config;
    private final EventLoopGroup loops;
    private final ExecutorService executor;
    private final ServerContext context;
    private final Acceptor acceptor;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    private HttpServer(ServerConfig config, EventLoopGroup loops, ExecutorService executor, ServerContext context,
                       Acceptor acceptor) {
        this.config = config;
        this.loops = loops;
        this.executor = executor;
        this.context = context;
        this.acceptor = acceptor;
    }

    /**
     * Binds and starts serving.
     *
     * @throws java.net.BindException when the address is in use or cannot be bound
     * @throws IOException            when the event loops cannot be created
     */
    public static HttpServer start(ServerConfig config, HttpHandler handler) throws IOException {
        return start(config, handler, failure -> log.error("an event loop died; the connections it served are closed"));
    }

    /**
     * Binds and starts serving; {@code onLoopFailure} is told when an event loop thread dies (an
     * {@code OutOfMemoryError}, a bug), after it closed its connections. A process that cannot
     * serve on that loop any more should stop (a node exits), rather than accept connections that
     * land on a dead loop.
     */
    public static HttpServer start(ServerConfig config, HttpHandler handler, java.util.function.Consumer<Throwable> onLoopFailure)
            throws IOException {
        return start(config, handler, onLoopFailure, ExchangeListener.NONE);
    }

    /** As above; {@code listener} is told of every request the handler answered (metrics). */
    public static HttpServer start(ServerConfig config, HttpHandler handler, java.util.function.Consumer<Throwable> onLoopFailure,
                                   ExchangeListener listener) throws IOException {
        EventLoopGroup loops = new EventLoopGroup(config.eventLoops(), "ringkv-http-loop",
                EventLoopGroup.READ_BUFFER_BYTES_DEFAULT, System::nanoTime, onLoopFailure);
        ExecutorService executor = HandlerExecutor.create(config.handlerThreads(), config.inFlightMax());
        try {
            ServerContext context = new ServerContext(config, handler, executor, listener);
            Acceptor acceptor = loops.bind(new InetSocketAddress(config.host(), config.port()),
                    EventLoopGroup.BACKLOG_DEFAULT, config.channelOptions(), context);
            log.info("HTTP server listening on {}{}", acceptor.localAddress(), config.tls() == null ? ""
                    : " with TLS (ALPN " + String.join(", ", config.tls().applicationProtocols()) + ")");
            return new HttpServer(config, loops, executor, context, acceptor);
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            loops.close();
            throw e;
        }
    }

    /**
     * The bounded executor handlers run on, for the part of a request a handler that runs on the
     * event loop ({@link HeadAdmission#onLoop}) hands off because it would block there. It refuses
     * ({@link java.util.concurrent.RejectedExecutionException}) only when full, which the in-flight
     * budget keeps it from being while each admitted request hands off at most one task at a time,
     * or once the server is closing.
     */
    public java.util.concurrent.Executor handlerExecutor() {
        return executor;
    }

    /** The bound port (the real one when the config asked for port 0). */
    public int port() {
        return acceptor.localAddress().getPort();
    }

    public InetSocketAddress address() {
        return acceptor.localAddress();
    }

    public ServerConfig config() {
        return config;
    }

    /** Connections open right now. */
    public int openConnections() {
        return context.openConnections();
    }

    /** Requests admitted and not yet finished. */
    public int inFlight() {
        return context.inFlight();
    }

    /** Connections accepted since start, those refused over {@link ServerConfig#connectionsMax()} included. */
    public long connectionsAccepted() {
        return context.connectionsAccepted();
    }

    /** Connections closed at once because the limit of open ones was reached. */
    public long connectionsRefused() {
        return context.connectionsRefused();
    }

    /** Requests the server answered 503 itself, before any handler: over the in-flight or body memory budget. */
    public long requestsRefused() {
        return context.requestsRefused();
    }

    /**
     * Requests the handler's {@link HeadAdmission} answered at their head, bodies unread (an
     * {@link ExchangeListener} does not hear of them: the handler never ran).
     */
    public long requestsRefusedAtHead() {
        return context.requestsRefusedAtHead();
    }

    /** TLS handshakes that failed since start (timed out, broken off, refused by either side); 0 without TLS. */
    public long tlsHandshakesFailed() {
        return context.handshakesFailed();
    }

    /** Connections closed at once because {@link ServerTls#handshakesMax()} handshakes were in progress; 0 without TLS. */
    public long tlsHandshakesRefused() {
        return context.handshakesRefused();
    }

    /** Bytes read from client connections since start. */
    public long bytesRead() {
        long sum = 0;
        for (io.ringkv.net.EventLoop loop : loops.loops()) {
            sum += loop.bytesRead();
        }
        return sum;
    }

    /** Bytes written to client connections since start. */
    public long bytesWritten() {
        long sum = 0;
        for (io.ringkv.net.EventLoop loop : loops.loops()) {
            sum += loop.bytesWritten();
        }
        return sum;
    }

    /** Time the event loops spent working rather than waiting, all loops together, since start. */
    public long loopBusyNanos() {
        long sum = 0;
        for (io.ringkv.net.EventLoop loop : loops.loops()) {
            sum += loop.busyNanos();
        }
        return sum;
    }

    /**
     * Timers the event loops hold, all loops together, as of their last iterations: a constant few
     * per connection; one that grows with the requests served is a leak.
     */
    public int timersPending() {
        int sum = 0;
        for (io.ringkv.net.EventLoop loop : loops.loops()) {
            sum += loop.timersPending();
        }
        return sum;
    }

    /**
     * The server's event loops, for connections of the application's own that should live on the
     * same threads as the requests that use them (a node's connections to its peers): a request
     * handled on a loop then reaches a peer and hears back without waking another thread. Closed
     * with the server; connections on it are aborted then.
     */
    public EventLoopGroup loopGroup() {
        return loops;
    }

    /** The number of event loops (for a busy ratio: busy time over wall time times this). */
    public int eventLoops() {
        return loops.loops().size();
    }

    /**
     * Graceful shutdown: stop accepting (new connections are refused), let requests already
     * admitted finish within {@code grace} (their responses carry {@code Connection: close}),
     * close idle connections at once, then cut off whatever is left and stop the executor and
     * the event loops. Blocks until done.
     */
    public void shutdown(Duration grace) {
        if (!stopping.compareAndSet(false, true)) {
            awaitStopped();
            return;
        }
        try {
            long deadline = System.nanoTime() + grace.toNanos();
            acceptor.close();
            context.drainAll();
            if (!context.awaitNoSessions(deadline)) {
                log.warn("shutdown grace of {} over with {} connections open; closing them", grace,
                        context.openConnections());
                context.abortAll();
                context.awaitNoSessions(System.nanoTime() + FORCED_STOP_WAIT.toNanos());
            }
            stopExecutor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        } finally {
            loops.close();
            stopped.countDown();
            log.info("HTTP server on {} stopped", acceptor.localAddress());
        }
    }

    /** {@link #shutdown} with {@link ServerConfig#shutdownGrace()}. */
    @Override
    public void close() {
        shutdown(config.shutdownGrace());
    }

    private void stopExecutor() throws InterruptedException {
        executor.shutdown();
        if (!executor.awaitTermination(FORCED_STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            log.warn("handler threads still busy after shutdown; interrupting them");
            executor.shutdownNow();
            executor.awaitTermination(FORCED_STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void awaitStopped() {
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
