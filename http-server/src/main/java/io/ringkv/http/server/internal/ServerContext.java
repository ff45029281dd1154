package io.ringkv.http.server.internal;

import io.ringkv.http.server.ExchangeListener;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.net.AcceptHandler;
import io.ringkv.net.ConnectionHandler;
import java.security.cert.X509Certificate;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every HTTP/1.1 and HTTP/2 session of one server shares: settings, the handler, the executor, the
 * in-flight budget, and the set of open sessions (for the connection limit and shutdown).
 *
 * <p>Threading: thread-safe. {@link #newHandler} runs on the accepting loop.
 */
public final class ServerContext implements AcceptHandler {
    private static final Logger log = LoggerFactory.getLogger(ServerContext.class);

    private final ServerConfig config;
    private final HandlerInvoker invoker;
    private final ExecutorService executor;
    private final InFlightBudget budget;
    private final BodyMemoryBudget bodyMemory;
    private final HeadGate headGate;
    private final Set<ServerSession> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connections = new AtomicInteger();
    private final Object sessionsChanged = new Object();
    // For metrics: adders, as every loop and handler thread counts into them.
    private final LongAdder accepted = new LongAdder();
    private final LongAdder refusedConnections = new LongAdder();
    private final LongAdder refusedRequests = new LongAdder();
    /** Null on a cleartext server. */
    private final ServerTlsEngines tls;
    private final AtomicInteger handshakes = new AtomicInteger();
    private final LongAdder refusedHandshakes = new LongAdder();
    private final HandshakeFailureLog handshakeFailures = new HandshakeFailureLog();
    /** Set once by {@link #drainAll}; read by every session without waiting for its own drain task. */
    private volatile boolean draining;

    public ServerContext(ServerConfig config, HttpHandler handler, ExecutorService executor) {
        this(config, handler, executor, ExchangeListener.NONE);
    }

    public ServerContext(ServerConfig config, HttpHandler handler, ExecutorService executor, ExchangeListener listener) {
        this.config = config;
        this.invoker = new HandlerInvoker(handler, listener);
        this.executor = executor;
        this.budget = new InFlightBudget(config.inFlightMax(), config.inFlightReserve());
        this.bodyMemory = new BodyMemoryBudget(config.bodyMemoryMax());
        this.headGate = new HeadGate(handler);
        this.tls = config.tls() == null ? null : new ServerTlsEngines(config.tls());
    }

    /**
     * Over the connection limit, or on a TLS server over the bound of handshakes in progress, the
     * connection is refused (closed at once).
     */
    @Override
    public ConnectionHandler newHandler(InetSocketAddress remote) {
        accepted.increment();
        if (connections.incrementAndGet() > config.connectionsMax()) {
            connections.decrementAndGet();
            refusedConnections.increment();
            log.debug("refusing {}: {} connections open", remote, config.connectionsMax());
            return null;
        }
        if (tls == null) {
            return new ProtocolSelector(this, ProtocolSelector.Mode.CLEARTEXT, List.of());
        }
        if (handshakes.incrementAndGet() > tls.handshakesMax()) {
            handshakes.decrementAndGet();
            connections.decrementAndGet();
            refusedHandshakes.increment();
            log.debug("refusing {}: {} TLS handshakes in progress", remote, tls.handshakesMax());
            return null;
        }
        try {
            return new TlsHandshakeGuard(this, tls);
        } catch (RuntimeException e) {
            handshakes.decrementAndGet();
            connections.decrementAndGet();
            throw e;
        }
    }

    /** Loop thread: a TLS handshake finished, or failed ({@code failure} not null); its slot is free. */
    void handshakeEnded(InetSocketAddress remote, Throwable failure) {
        handshakes.decrementAndGet();
        if (failure != null) {
            handshakeFailures.failed(remote, failure, System.nanoTime());
        }
    }

    Duration tlsHandshakeTimeout() {
        return tls.handshakeTimeout();
    }

    /** TLS handshakes in progress now. */
    public int handshakesInProgress() {
        return handshakes.get();
    }

    /** TLS handshakes that failed since start: timed out, broken off, or refused by either side. */
    public long handshakesFailed() {
        return handshakeFailures.failures();
    }

    /** Connections closed at once because {@link io.ringkv.http.server.ServerTls#handshakesMax()} handshakes were in progress. */
    public long handshakesRefused() {
        return refusedHandshakes.sum();
    }

    ServerConfig config() {
        return config;
    }

    ExecutorService executor() {
        return executor;
    }

    BodyMemoryBudget bodyMemory() {
        return bodyMemory;
    }

    /** The handler's look at request heads, before their bodies are read. */
    HeadGate headGate() {
        return headGate;
    }

    InFlightBudget budget() {
        return budget;
    }

    HandlerInvoker invoker() {
        return invoker;
    }

    void opened(ServerSession session) {
        sessions.add(session);
    }

    void closed(ServerSession session) {
        if (sessions.remove(session)) {
            connections.decrementAndGet();
        }
        synchronized (sessionsChanged) {
            sessionsChanged.notifyAll();
        }
    }

    /** {@code session} handed its connection to another session, which registered itself: the connection stays counted. */
    void handedOver(ServerSession session) {
        sessions.remove(session);
    }

    /** A connection closed before its protocol was chosen: it held a connection slot only. */
    void closedBeforeSession() {
        connections.decrementAndGet();
    }

    public int openConnections() {
        return connections.get();
    }

    public int inFlight() {
        return budget.inFlight();
    }

    /** A request answered 503 by the server itself: over the in-flight or body memory budget, or the executor refused it. */
    void refusedRequest() {
        refusedRequests.increment();
    }

    /** Connections accepted since start, the refused ones included. */
    public long connectionsAccepted() {
        return accepted.sum();
    }

    /** Connections closed at once because {@link ServerConfig#connectionsMax()} were open. */
    public long connectionsRefused() {
        return refusedConnections.sum();
    }

    /** Requests the handler's {@link io.ringkv.http.server.HeadAdmission} answered at their head, bodies unread. */
    public long requestsRefusedAtHead() {
        return headGate.refused();
    }

    public long requestsRefused() {
        return refusedRequests.sum();
    }

    /** Whether shutdown has begun: from then on every response is the last on its connection. */
    boolean draining() {
        return draining;
    }

    /**
     * Asks every session to finish what it has started and close. The flag goes up before the
     * per-session tasks are queued, so a response that completes while a session's drain task is
     * still waiting on its loop already carries {@code Connection: close}.
     */
    public void drainAll() {
        draining = true;
        for (ServerSession session : List.copyOf(sessions)) {
            try {
                session.loop().execute(session::beginDrain);
            } catch (RejectedExecutionException e) {
                log.debug("loop already stopped for {}", session);
            }
        }
    }

    /** Aborts every session still open. */
    public void abortAll() {
        for (ServerSession session : List.copyOf(sessions)) {
            session.abort();
        }
    }

    /** Waits until no session is open or the deadline passes; returns whether none is open. */
    public boolean awaitNoSessions(long deadlineNanos) throws InterruptedException {
        synchronized (sessionsChanged) {
            while (!sessions.isEmpty()) {
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(sessionsChanged, remaining);
            }
            return true;
        }
    }
}
