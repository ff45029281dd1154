package io.ringkv.http.client.internal;

import io.ringkv.net.ChannelOptions;
import io.ringkv.net.ConnectTimeoutException;
import io.ringkv.net.EventLoopGroup;
import io.ringkv.net.ScheduledTask;
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
 * <p>Threading: thread-safe. Connects resolve host names on the calling thread (an application
 * thread or the client executor; never a loop), then connect without blocking.
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
    private final ConnectionPool pool;
    private final H1Codec codec;

    private NetTransport(EventLoopGroup loops, ClientConfig config, Executor executor) {
        this.loops = loops;
        this.config = config;
        this.executor = executor;
        this.pool = new ConnectionPool(config.extensions().connectionsPerHost(),
                config.extensions().idleTimeout(), this::connect);
        this.codec = new H1Codec(pool);
    }

    static NetTransport open(ClientConfig config, Executor executor) {
        try {
            EventLoopGroup loops = new EventLoopGroup(LOOPS, "ringkv-http-client-" + CLIENT_IDS.incrementAndGet());
            return new NetTransport(loops, config, executor);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the client's event loop", e);
        }
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
        pool.close();
        loops.close();
    }

    private CompletableFuture<H1Connection> connect(Route route) {
        CompletableFuture<H1Connection> result = new CompletableFuture<>();
        // Name resolution blocks: run it on the executor, never on a loop.
        Hops.run(executor, () -> {
            InetSocketAddress address = route.connectAddress();
            InetSocketAddress resolved = address.isUnresolved()
                    ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
            H1Connection handler = new H1Connection(route, pool);
            Duration timeout = config.connectTimeout() != null ? config.connectTimeout() : CONNECT_TIMEOUT_DEFAULT;
            loops.connect(resolved, timeout, ChannelOptions.defaults(), handler).whenComplete((connection, error) -> {
                if (error != null) {
                    result.completeExceptionally(connectFailure(Failures.unwrap(error), resolved));
                } else {
                    result.complete(handler);
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
