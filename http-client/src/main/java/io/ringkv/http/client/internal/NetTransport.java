package io.ringkv.http.client.internal;

import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Settings;
import io.ringkv.http.h2.UpgradeSettings;
import io.ringkv.net.ChannelOptions;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.ConnectTimeoutException;
import io.ringkv.net.EventLoopGroup;
import io.ringkv.net.ScheduledTask;
import io.ringkv.net.tls.TlsConnection;
import java.util.List;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client's network: its own event loop group (one loop; a client's sockets are few and its
 * work is mostly waiting), the HTTP/1.1 connection pool on it, and timers on the loop.
 *
 * <p>Threading: thread-safe. Connects resolve host names on the resolver executor (the client's
 * executor unless the builder named another: never a loop), then connect without blocking.
 */
final class NetTransport implements Transport {
    /** Loops per client. */
    static final int LOOPS = 1;
    /** Bound on a connect when the application set no connect timeout (the JDK leaves it to the OS). */
    static final Duration CONNECT_TIMEOUT_DEFAULT = Duration.ofMinutes(2);
    private static final AtomicInteger CLIENT_IDS = new AtomicInteger();

    private final EventLoopGroup loops;
    private final ClientConfig config;
    private final Executor executor;
    /** Runs the blocking name resolution before a connect. */
    private final Executor resolver;
    private final ConnectionPool pool;
    private final H2Codec h2;
    private final VersionedCodec codec;
    private final OpenConnections openConnections = new OpenConnections();

    private NetTransport(EventLoopGroup loops, ClientConfig config, Executor executor) {
        this.loops = loops;
        this.config = config;
        this.executor = executor;
        this.resolver = config.extensions().resolverExecutor() != null ? config.extensions().resolverExecutor() : executor;
        this.pool = new ConnectionPool(config.extensions().connectionsPerHost(),
                config.extensions().idleTimeout(), this::connect);
        boolean priorKnowledge = config.extensions().http2PriorKnowledge();
        // Cleartext origins without prior knowledge reach HTTP/2 only by Upgrade: h2c on a request.
        this.h2 = new H2Codec(this::connectH2, route -> route.secure() || priorKnowledge,
                config.extensions().connectionsPerHost(), config.extensions().idleTimeout());
        this.codec = new VersionedCodec(new H1Codec(pool), h2, priorKnowledge,
                UpgradeSettings.fieldValue(http2Config(config.extensions()).local()), this::newH2Connection);
    }

    static NetTransport open(ClientConfig config, Executor executor) {
        try {
            EventLoopGroup loops = new EventLoopGroup(LOOPS, "ringkv-http-client-" + CLIENT_IDS.incrementAndGet());
            return new NetTransport(loops, config, executor);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the client's event loop", e);
        }
    }

    /** Routes the HTTP/1.1 pool and the HTTP/2 codec keep state for. */
    @Override
    public int routesHeld() {
        return pool.routesHeld() + h2.routesHeld();
    }

    @Override
    public io.ringkv.http.client.ClientStats stats() {
        return openConnections.snapshot();
    }

    @Override
    public ExchangeCodec codec() {
        return codec;
    }

    @Override
    public Scheduler scheduler() {
        return (task, delay) -> {
            ScheduledTask scheduled = loops.next().schedule(task, delay);
            return scheduled::cancel;
        };
    }

    @Override
    public void close() {
        codec.close();
        loops.close();
    }

    private CompletableFuture<H1Connection> connect(Route route) {
        H1Connection handler = new H1Connection(route, pool, openConnections);
        if (!route.secure()) {
            return connect(route, handler).thenApply(connected -> handler);
        }
        return connectTls(route, List.of(TlsSetup.ALPN_HTTP1), protocol -> handler).thenApply(tls -> handler);
    }

    /** An HTTP/2 connection handler for the route, not yet attached to a socket. */
    private H2Connection newH2Connection(Route route) {
        return new H2Connection(route, h2, http2Config(config.extensions()),
                new H2Liveness(config.extensions().http2PingInterval(), config.extensions().http2PingTimeout()),
                openConnections);
    }

    /** Completes once the server's SETTINGS arrived, so that its stream limit is known. */
    private CompletableFuture<H2Connection> connectH2(Route route) {
        H2Connection handler = newH2Connection(route);
        if (!route.secure()) {
            return connect(route, handler).thenCompose(connected -> handler.ready());
        }
        // RFC 9113 §3.2: offer h2 and http/1.1; a server that picks http/1.1 gets this route's requests as HTTP/1.1.
        return connectTls(route, List.of(TlsSetup.ALPN_H2, TlsSetup.ALPN_HTTP1),
                protocol -> TlsSetup.ALPN_H2.equals(protocol) ? handler : new ClosingHandler())
                .thenCompose(tls -> {
                    if (TlsSetup.ALPN_H2.equals(tls.session() == null ? null : tls.applicationProtocol())) {
                        return handler.ready();
                    }
                    codec.http1Only(route);
                    return CompletableFuture.failedFuture(new Http1NegotiatedException(route));
                });
    }

    /** A TLS connection whose handshake finished; the handler for the ALPN result is open on it. */
    private CompletableFuture<TlsConnection> connectTls(Route route, List<String> alpn,
            java.util.function.Function<String, ConnectionHandler> handlers) {
        TlsConnection tls;
        try {
            // Delegated handshake tasks run on the client executor (as the JDK client does), never on the loop.
            tls = new TlsConnection(TlsSetup.engine(config, route, alpn), handlers, executor);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(new javax.net.ssl.SSLException("cannot set up TLS: " + e.getMessage(), e));
        }
        if (route.proxy() == null) {
            return connect(route, tls).thenCompose(connected -> tls.handshake()).thenApply(session -> tls);
        }
        // https through an HTTP proxy: a CONNECT tunnel first, then TLS end to end with the origin.
        ProxyTunnel tunnel = new ProxyTunnel(route, tls);
        return connect(route, tunnel).thenCompose(connected -> tunnel.established())
                .thenCompose(open -> tls.handshake()).thenApply(session -> tls);
    }

    static Http2Config http2Config(ClientConfig.Extensions extensions) {
        Http2Settings defaults = Http2Settings.localDefaults();
        // RFC 9113 §6.5.2: push as the builder says (on by default, as in the JDK client); our
        // stream window as SETTINGS_INITIAL_WINDOW_SIZE; the JDK client's header list bound.
        Http2Settings local = new Http2Settings(defaults.headerTableSize(), extensions.http2ServerPush(),
                defaults.maxConcurrentStreams(),
                extensions.http2StreamWindowBytes(), defaults.maxFrameSize(), ResponseHeadLimits.http2HeaderListBytes());
        return Http2Config.defaults().withLocal(local)
                .withConnectionWindow(extensions.http2ConnectionWindowBytes(), Http2Config.DEFAULT_CREDIT_RATIO);
    }

    /**
     * Write water marks of the client's connections. The high mark bounds how much of a request
     * body is queued ahead of the socket, and so the largest write a run of a synchronous
     * publisher is batched into ({@link RequestFlushBatch}): 1 MiB, the bound of a response
     * body's queue ({@link BodyPipe}) too. Against the 256 KiB default, a 1 MiB POST over
     * HTTP/1.1 took 2 writes instead of 4 and the server's reader woke once per request instead
     * of about ten times (measured when this was set; the write counts are in git history of docs/benchmarks.md).
     */
    static final ChannelOptions CHANNEL_OPTIONS = ChannelOptions.defaults().withWaterMarks(64 * 1024, 1024 * 1024);

    private CompletableFuture<Void> connect(Route route, ConnectionHandler handler) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        // Name resolution blocks: run it on the resolver executor, never on a loop.
        Hops.run(resolver, () -> {
            InetSocketAddress address = route.connectAddress();
            InetSocketAddress resolved = address.isUnresolved()
                    ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
            Duration timeout = config.connectTimeout() != null ? config.connectTimeout() : CONNECT_TIMEOUT_DEFAULT;
            loops.connect(resolved, config.localAddress(), timeout, CHANNEL_OPTIONS, handler).whenComplete((connection, error) -> {
                if (error != null) {
                    result.completeExceptionally(connectFailure(Failures.unwrap(error), resolved));
                } else {
                    result.complete(null);
                }
            });
        });
        return result;
    }

    private static Throwable connectFailure(Throwable error, InetSocketAddress address) {
        if (error instanceof ConnectTimeoutException) {
            HttpConnectTimeoutException timeout = new HttpConnectTimeoutException("HTTP connect timed out");
            timeout.initCause(error);
            return timeout;
        }
        if (error instanceof java.net.UnknownHostException) {
            // As the JDK's client: a name that does not resolve is a failed connect (it throws
            // ConnectException there too), so code catching ConnectException sees both alike.
            java.net.ConnectException unresolved = new java.net.ConnectException(
                    "cannot resolve host " + address.getHostString());
            unresolved.initCause(error);
            return unresolved;
        }
        if (error instanceof javax.net.ssl.SSLException) {
            return error;
        }
        if (error instanceof IOException) {
            java.net.ConnectException refused = new java.net.ConnectException(
                    error.getMessage() + " (" + address + ")");
            refused.initCause(error);
            return refused;
        }
        return error;
    }
}

/** The handler of a TLS connection the client will not use (the server chose another protocol): closes it. */
final class ClosingHandler implements ConnectionHandler {
    @Override
    public void onOpen(io.ringkv.net.Connection connection) {
        connection.closeAfterFlush();
    }

    @Override
    public void onRead(io.ringkv.net.Connection connection, java.nio.ByteBuffer input) {
        input.position(input.limit());
    }

    @Override
    public void onClosed(io.ringkv.net.Connection connection, Throwable cause) {
    }
}
