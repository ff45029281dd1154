package io.ringkv.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fixed set of {@link EventLoop}s. Channels are assigned to loops round-robin and stay on their
 * loop for life. Serves both directions: {@link #bind} for listening, {@link #connect} for
 * outbound connections.
 *
 * <p>Threading: every method may be called from any thread.
 */
public final class EventLoopGroup implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventLoopGroup.class);

    /** Size of each loop's shared read buffer: larger than any header block we accept. */
    public static final int READ_BUFFER_BYTES_DEFAULT = 64 * 1024;
    public static final int BACKLOG_DEFAULT = 1024;
    /** How long {@link #close()} waits for each loop thread to finish. */
    static final Duration TERMINATION_WAIT_MAX = Duration.ofSeconds(10);

    private final List<EventLoop> loops;
    private final AtomicInteger nextLoop = new AtomicInteger();

    /** {@code loopCount} loops named {@code threadNamePrefix-N}, with default buffers and the system clock. */
    public EventLoopGroup(int loopCount, String threadNamePrefix) throws IOException {
        this(loopCount, threadNamePrefix, READ_BUFFER_BYTES_DEFAULT, System::nanoTime);
    }

    public EventLoopGroup(int loopCount, String threadNamePrefix, int readBufferBytes, LongSupplier nanoClock)
            throws IOException {
        this(loopCount, threadNamePrefix, readBufferBytes, nanoClock, failure -> { });
    }

    /**
     * @param onLoopFailure told when a loop thread dies of an exception or error, after it closed
     *                      its channels (a server that cannot serve on that loop may want to exit)
     */
    public EventLoopGroup(int loopCount, String threadNamePrefix, int readBufferBytes, LongSupplier nanoClock,
                          java.util.function.Consumer<Throwable> onLoopFailure) throws IOException {
        if (loopCount < 1) {
            throw new IllegalArgumentException("loopCount must be at least 1, got " + loopCount);
        }
        List<EventLoop> created = new ArrayList<>(loopCount);
        try {
            for (int i = 0; i < loopCount; i++) {
                created.add(new EventLoop(threadNamePrefix + "-" + i, readBufferBytes, nanoClock, onLoopFailure));
            }
        } catch (IOException e) {
            created.forEach(EventLoop::stop);
            throw e;
        }
        this.loops = List.copyOf(created);
        loops.forEach(EventLoop::start);
    }

    /** About one loop per core. */
    public static int defaultLoopCount() {
        return Runtime.getRuntime().availableProcessors();
    }

    public EventLoop next() {
        return loops.get(Math.floorMod(nextLoop.getAndIncrement(), loops.size()));
    }

    public List<EventLoop> loops() {
        return loops;
    }

    /**
     * Listens on {@code address} (port 0: an ephemeral port, see {@link Acceptor#localAddress()}).
     *
     * @throws java.net.BindException when the address is taken
     */
    public Acceptor bind(InetSocketAddress address, int backlog, ChannelOptions options, AcceptHandler acceptHandler)
            throws IOException {
        return Acceptor.bind(this, address, backlog, options, acceptHandler);
    }

    /**
     * Opens an outbound connection on the next loop without blocking.
     *
     * @return completes on the loop thread once {@code handler.onOpen} has run; fails with
     *         {@link ConnectTimeoutException} after {@code connectTimeout}, or with the connect
     *         error (e.g. {@link java.net.ConnectException}); cancelling it abandons the attempt
     */
    public CompletableFuture<Connection> connect(InetSocketAddress remote, Duration connectTimeout,
                                                 ChannelOptions options, ConnectionHandler handler) {
        return connect(remote, null, connectTimeout, options, handler);
    }

    /**
     * As {@link #connect(InetSocketAddress, Duration, ChannelOptions, ConnectionHandler)}, from
     * {@code localAddress} (any free port on it) instead of an address the OS picks.
     *
     * @param localAddress {@code null} to let the OS choose; a failure to bind fails the future
     *                     (e.g. {@link java.net.BindException})
     */
    public CompletableFuture<Connection> connect(InetSocketAddress remote, java.net.InetAddress localAddress,
                                                 Duration connectTimeout, ChannelOptions options,
                                                 ConnectionHandler handler) {
        return connect(next(), remote, localAddress, connectTimeout, options, handler);
    }

    /**
     * As {@link #connect(InetSocketAddress, Duration, ChannelOptions, ConnectionHandler)}, owned by
     * {@code loop} rather than the next one: a caller that runs on a loop keeps the connection's
     * reads, writes and callbacks on its own thread, with no hand-over between loops.
     *
     * @throws IllegalArgumentException if {@code loop} is not one of this group's
     */
    public CompletableFuture<Connection> connect(EventLoop loop, InetSocketAddress remote, Duration connectTimeout,
                                                 ChannelOptions options, ConnectionHandler handler) {
        if (!loops.contains(loop)) {
            throw new IllegalArgumentException(loop + " is not a loop of this group");
        }
        return connect(loop, remote, null, connectTimeout, options, handler);
    }

    private CompletableFuture<Connection> connect(EventLoop loop, InetSocketAddress remote, java.net.InetAddress localAddress,
                                                  Duration connectTimeout, ChannelOptions options, ConnectionHandler handler) {
        CompletableFuture<Connection> result = new CompletableFuture<>();
        PendingConnect pending = new PendingConnect(this, loop, remote, localAddress, options, handler, result);
        try {
            loop.execute(() -> pending.start(connectTimeout));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IOException("event loops are closed", e));
        }
        return result;
    }

    /** Loop thread: wraps a connected channel and opens its handler; returns null if that failed. */
    NioConnection open(EventLoop loop, SocketChannel channel, SelectionKey key, ConnectionHandler handler,
                       ChannelOptions options) {
        try {
            NioConnection connection = new NioConnection(loop, channel, handler, options);
            connection.open(key);
            return connection;
        } catch (IOException | RuntimeException e) {
            log.debug("could not open a connection on {}", loop, e);
            if (key != null) {
                key.cancel();
            }
            Acceptor.closeQuietly(channel);
            return null;
        }
    }

    /**
     * Stops every loop: each aborts its connections (handlers see {@code onClosed}) and closes its
     * listeners. Waits a bounded time for the threads to end.
     */
    @Override
    public void close() {
        loops.forEach(EventLoop::stop);
        for (EventLoop loop : loops) {
            try {
                if (!loop.inLoop() && !loop.awaitTermination(TERMINATION_WAIT_MAX)) {
                    log.warn("{} did not stop within {}", loop, TERMINATION_WAIT_MAX);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
