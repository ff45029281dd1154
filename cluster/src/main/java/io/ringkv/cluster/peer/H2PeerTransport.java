package io.ringkv.cluster.peer;

import io.ringkv.http.client.ClientStats;
import io.ringkv.http.client.RouteStats;
import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Settings;
import io.ringkv.net.ChannelOptions;
import io.ringkv.net.ConnectTimeoutException;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import io.ringkv.net.EventLoopGroup;
import io.ringkv.net.tls.TlsConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The node-to-node requests over HTTP/2 straight on http-core's {@link io.ringkv.http.h2.Http2Connection}
 * and net's event loops: no {@code java.net.http} layer (no URI, request builder, body publisher,
 * response subscriber or {@code HttpHeaders}) between a replica call and its frames.
 *
 * <p>Each event loop keeps its own connection to each peer. A request made on one of the loops
 * (a coordinator answering a client there) goes on that loop's connection, and its answer is read
 * and handled there too: no thread is woken between the client's request, the peers and the
 * client's answer. A request from any other thread hops to a loop once (round robin).
 *
 * <p>Given the server's loop group (a node's), the peers' connections live on the loops that
 * serve the clients; without one, the transport runs a loop of its own.
 *
 * <p>Threading: thread-safe. Each loop's connections are confined to it ({@link LoopConnections}).
 */
public final class H2PeerTransport implements PeerTransport {
    /** Requests one connection queues while it opens or while every stream slot is taken. */
    static final int WAITING_MAX = 4096;
    /** A connection without a request for this long is closed; the next request opens another. */
    static final Duration IDLE_CLOSE = Duration.ofMinutes(2);
    private static final String ALPN_H2 = "h2";
    private static final AtomicInteger OWN_GROUPS = new AtomicInteger();

    private final EventLoopGroup loops;
    private final boolean ownsLoops;
    private final List<EventLoop> loopList;
    private final Map<EventLoop, LoopConnections> perLoop;
    private final AtomicInteger nextLoop = new AtomicInteger();
    private final Executor blocking;
    private final SSLContext trust;
    private final Duration connectTimeout;
    private final Duration pingInterval;
    private final Duration pingTimeout;
    private final int answerBytesMax;
    private final Http2Config config;
    private final Set<PeerConnection> connections = ConcurrentHashMap.newKeySet();
    private final LongAdder connectionsOpened = new LongAdder();
    private volatile boolean closed;

    /**
     * @param loops          the loops to run on (a node's server loops), or null for one of the
     *                       transport's own
     * @param blocking       resolves peer host names and runs TLS handshake work: never a loop
     * @param trust          verifies https peers' certificates; null for the JDK's default trust
     * @param connectTimeout bound on opening a connection
     * @param pingInterval   a connection that read nothing for this long sends a PING
     * @param pingTimeout    and is given up when nothing answers it within this
     * @param answerBytesMax the most body bytes a whole answer may have
     */
    public H2PeerTransport(EventLoopGroup loops, Executor blocking, SSLContext trust, Duration connectTimeout,
                           Duration pingInterval, Duration pingTimeout, int answerBytesMax) {
        if (answerBytesMax < 1) {
            throw new IllegalArgumentException("the answer bound must be positive, got " + answerBytesMax);
        }
        this.ownsLoops = loops == null;
        try {
            this.loops = loops != null ? loops : new EventLoopGroup(1, "ringkv-peer-" + OWN_GROUPS.incrementAndGet());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the peer transport's event loop", e);
        }
        this.loopList = this.loops.loops();
        Map<EventLoop, LoopConnections> map = new IdentityHashMap<>();
        for (EventLoop loop : loopList) {
            map.put(loop, new LoopConnections(loop));
        }
        this.perLoop = map;
        this.blocking = blocking;
        this.trust = trust;
        this.connectTimeout = connectTimeout;
        this.pingInterval = pingInterval;
        this.pingTimeout = pingTimeout;
        this.answerBytesMax = answerBytesMax;
        Http2Settings defaults = Http2Settings.localDefaults();
        // No push; otherwise our defaults (1 MiB stream windows, 64 KiB of answer fields at most).
        this.config = Http2Config.defaults().withLocal(new Http2Settings(defaults.headerTableSize(), false,
                defaults.maxConcurrentStreams(), defaults.initialWindowSize(), defaults.maxFrameSize(),
                defaults.maxHeaderListBytes()));
    }

    @Override
    public CompletableFuture<PeerAnswer> send(PeerRequest request) {
        PeerExchange exchange = PeerExchange.whole(request, answerBytesMax);
        dispatch(exchange);
        return exchange.answer();
    }

    @Override
    public CompletableFuture<PeerStreamedAnswer> open(PeerRequest request) {
        PeerExchange exchange = PeerExchange.streamed(request);
        dispatch(exchange);
        return exchange.streamedAnswer();
    }

    private void dispatch(PeerExchange exchange) {
        EventLoop current = EventLoop.current();
        LoopConnections here = current == null ? null : perLoop.get(current);
        if (here != null) {
            here.submit(exchange);
            return;
        }
        LoopConnections chosen = perLoop.get(loopList.get(Math.floorMod(nextLoop.getAndIncrement(), loopList.size())));
        try {
            chosen.loop.execute(() -> chosen.submit(exchange));
        } catch (RejectedExecutionException e) {
            failNow(exchange, new IOException("the peer transport is closed", e));
        }
    }

    private static void failNow(PeerExchange exchange, IOException cause) {
        if (exchange.isStreamed()) {
            exchange.streamedAnswer().completeExceptionally(cause);
        } else {
            exchange.answer().completeExceptionally(cause);
        }
    }

    @Override
    public Optional<ClientStats> stats() {
        Map<String, int[]> byOrigin = new HashMap<>();
        Map<String, PeerOrigin> origins = new HashMap<>();
        for (PeerConnection connection : connections) {
            String origin = connection.origin().origin();
            origins.putIfAbsent(origin, connection.origin());
            int[] counts = byOrigin.computeIfAbsent(origin, key -> new int[2]);
            counts[0]++;
            counts[1] += connection.streamsOpen();
        }
        List<RouteStats> routes = new ArrayList<>(byOrigin.size());
        byOrigin.forEach((origin, counts) -> {
            PeerOrigin parsed = origins.get(origin);
            routes.add(new RouteStats(parsed.secure() ? "https" : "http", parsed.host(), parsed.port(), null,
                    HttpClient.Version.HTTP_2, counts[0], counts[1]));
        });
        return Optional.of(new ClientStats(connectionsOpened.sum(), routes));
    }

    @Override
    public void close() {
        closed = true;
        for (LoopConnections connectionsOnLoop : perLoop.values()) {
            try {
                connectionsOnLoop.loop.execute(connectionsOnLoop::closeAll);
            } catch (RejectedExecutionException e) {
                // That loop stopped, and closed its connections with it.
            }
        }
        if (ownsLoops) {
            loops.close();
        }
    }

    /**
     * One loop's connections, one per peer origin. Threading: confined to {@link #loop}.
     */
    private final class LoopConnections implements PeerConnection.Owner {
        final EventLoop loop;
        private final Map<String, PeerConnection> byOrigin = new HashMap<>();
        /** Lower-cased field names, shared by this loop's connections. */
        private final Map<String, String> lowerCaseNames = new HashMap<>();

        LoopConnections(EventLoop loop) {
            this.loop = loop;
        }

        void submit(PeerExchange exchange) {
            if (closed) {
                exchange.fail(new IOException("the peer transport is closed"));
                return;
            }
            PeerConnection connection = byOrigin.get(exchange.request.origin());
            if (connection == null || !connection.takesRequests()) {
                PeerOrigin origin;
                try {
                    origin = PeerOrigin.parse(exchange.request.origin());
                } catch (IllegalArgumentException e) {
                    exchange.fail(new IOException(e.getMessage(), e));
                    return;
                }
                connection = new PeerConnection(origin, loop, this, config, lowerCaseNames, pingInterval, pingTimeout,
                        IDLE_CLOSE, WAITING_MAX);
                byOrigin.put(origin.origin(), connection);
                connections.add(connection);
                connection.openWithin(connectTimeout.plus(pingTimeout));
                connect(connection);
            }
            connection.submit(exchange);
        }

        @Override
        public void retired(PeerConnection connection) {
            byOrigin.remove(connection.origin().origin(), connection);
            if (connection.state() == PeerConnectionState.CLOSED) {
                connections.remove(connection);
            }
        }

        @Override
        public void retry(PeerExchange exchange) {
            submit(exchange);
        }

        @Override
        public void opened(PeerConnection connection) {
            connectionsOpened.increment();
        }

        void closeAll() {
            for (PeerConnection connection : List.copyOf(byOrigin.values())) {
                connection.shutDown(new IOException("the peer transport is closed"));
            }
            byOrigin.clear();
        }

        /** Opens {@code connection}'s socket (and TLS), resolving the host first off the loop when it is a name. */
        private void connect(PeerConnection connection) {
            PeerOrigin origin = connection.origin();
            if (origin.hostIsLiteral()) {
                InetSocketAddress address;
                try {
                    address = new InetSocketAddress(InetAddress.ofLiteral(origin.host()), origin.port());
                } catch (IllegalArgumentException e) {
                    connection.connectFailed(new IOException("not an address: " + origin.host(), e));
                    return;
                }
                connectTo(connection, address);
                return;
            }
            try {
                blocking.execute(() -> {
                    InetSocketAddress address = new InetSocketAddress(origin.host(), origin.port());
                    onLoop(() -> {
                        if (address.isUnresolved()) {
                            connection.connectFailed(new ConnectException("cannot resolve " + origin.host()));
                        } else {
                            connectTo(connection, address);
                        }
                    });
                });
            } catch (RejectedExecutionException e) {
                connection.connectFailed(new IOException("cannot resolve " + origin.host() + ": the executor is closed", e));
            }
        }

        private void connectTo(PeerConnection connection, InetSocketAddress address) {
            PeerOrigin origin = connection.origin();
            ConnectionHandler handler = connection;
            TlsConnection tls = null;
            if (origin.secure()) {
                try {
                    tls = new TlsConnection(engine(origin), protocol -> ALPN_H2.equals(protocol) ? connection : REFUSE,
                            blocking);
                } catch (RuntimeException e) {
                    connection.connectFailed(new IOException("cannot set up TLS to " + origin + ": " + e.getMessage(), e));
                    return;
                }
                handler = tls;
            }
            CompletableFuture<?> up;
            try {
                up = loops.connect(loop, address, connectTimeout, ChannelOptions.defaults(), handler);
            } catch (RuntimeException e) {
                connection.connectFailed(new IOException("cannot connect to " + origin + ": " + e.getMessage(), e));
                return;
            }
            if (tls != null) {
                TlsConnection secured = tls;
                up = up.thenCompose(open -> secured.handshake()).thenApply(session -> {
                    if (!ALPN_H2.equals(secured.applicationProtocol())) {
                        throw new CompletionException(new IOException(origin + " did not agree to HTTP/2 over TLS (ALPN: "
                                + secured.applicationProtocol() + ")"));
                    }
                    return session;
                });
            }
            up.whenComplete((ignored, failure) -> {
                if (failure != null) {
                    onLoop(() -> connection.connectFailed(connectFailure(origin, failure)));
                }
            });
        }

        private void onLoop(Runnable task) {
            try {
                loop.execute(task);
            } catch (RejectedExecutionException e) {
                // The loop stopped; its connections closed with it.
            }
        }
    }

    private SSLEngine engine(PeerOrigin origin) throws RuntimeException {
        SSLContext context;
        try {
            context = trust != null ? trust : SSLContext.getDefault();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("no default TLS context", e);
        }
        SSLEngine engine = context.createSSLEngine(origin.host(), origin.port());
        engine.setUseClientMode(true);
        SSLParameters parameters = context.getDefaultSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the peer's certificate must name its host
        if (!origin.hostIsLiteral()) {
            parameters.setServerNames(List.of(new SNIHostName(origin.host())));
        }
        parameters.setApplicationProtocols(new String[] {ALPN_H2});
        engine.setSSLParameters(parameters);
        return engine;
    }

    private static IOException connectFailure(PeerOrigin origin, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof ConnectTimeoutException) {
            HttpConnectTimeoutException timeout = new HttpConnectTimeoutException("no connection to " + origin + " within the connect timeout");
            timeout.initCause(cause);
            return timeout;
        }
        if (cause instanceof ConnectException refused) {
            return refused;
        }
        return cause instanceof IOException io ? io : new IOException("cannot connect to " + origin + ": " + cause, cause);
    }

    /** Opened over TLS when the peer picked a protocol other than h2: closes at once. */
    private static final ConnectionHandler REFUSE = new ConnectionHandler() {
        @Override
        public void onOpen(Connection connection) {
            connection.abort(new IOException("the peer did not agree to HTTP/2"));
        }

        @Override
        public void onRead(Connection connection, ByteBuffer input) {
            input.position(input.limit());
        }

        @Override
        public void onClosed(Connection connection, Throwable cause) {
        }
    };
}
