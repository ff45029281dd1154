package io.ringkv.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening socket: accepts on one loop and hands each connection to the group's next loop.
 *
 * <p>Threading: accepting runs on the accepting loop; {@link #close()} may be called from any thread.
 */
public final class Acceptor implements SelectionHandler, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Acceptor.class);

    /** Connections accepted per wake-up, so a connection storm cannot starve the loop's other channels. */
    static final int ACCEPTS_PER_WAKEUP_MAX = 64;
    /** First pause of accepting after a failed accept; it doubles while failures go on. */
    static final long ACCEPT_PAUSE_MIN_MILLIS = 10;
    static final long ACCEPT_PAUSE_MAX_MILLIS = 1_000;
    static final Duration CLOSE_WAIT_MAX = Duration.ofSeconds(5);

    private final EventLoopGroup group;
    private final EventLoop loop;
    private final ServerSocketChannel server;
    private final InetSocketAddress localAddress;
    private final ChannelOptions options;
    private final AcceptHandler acceptHandler;
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private SelectionKey key;
    /** Loop thread only: accepts that failed in a row, and the current pause. */
    private int failedAccepts;
    private long pauseMillis;

    private Acceptor(EventLoopGroup group, EventLoop loop, ServerSocketChannel server, ChannelOptions options,
                     AcceptHandler acceptHandler) throws IOException {
        this.group = group;
        this.loop = loop;
        this.server = server;
        this.localAddress = (InetSocketAddress) server.getLocalAddress();
        this.options = options;
        this.acceptHandler = acceptHandler;
    }

    /** Binds on the calling thread, so a taken port fails here with a {@link java.net.BindException}. */
    static Acceptor bind(EventLoopGroup group, InetSocketAddress address, int backlog, ChannelOptions options,
                         AcceptHandler acceptHandler) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, backlog);
            server.configureBlocking(false);
            Acceptor acceptor = new Acceptor(group, group.next(), server, options, acceptHandler);
            acceptor.startAccepting();
            return acceptor;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void startAccepting() throws IOException {
        CompletableFuture<Void> registered = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                key = loop.register(server, SelectionKey.OP_ACCEPT, this);
                registered.complete(null);
            } catch (IOException | RuntimeException e) {
                registered.completeExceptionally(e);
            }
        });
        await(registered, "registering the listening socket");
    }

    /** The bound address; its port is the real one when port 0 was asked for. */
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public void onSelected(int readyOps) {
        for (int i = 0; i < ACCEPTS_PER_WAKEUP_MAX; i++) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException e) {
                backOff(e);
                return;
            }
            if (channel == null) {
                return;
            }
            if (failedAccepts > 0) {
                log.info("accepting on {} again after {} failed attempts", localAddress, failedAccepts);
                failedAccepts = 0;
                pauseMillis = 0;
            }
            hand(channel);
        }
    }

    /**
     * An accept failed, typically with "too many open files": the pending connection stays in the
     * backlog and the selector would report it ready at once, forever, spinning the loop and
     * flooding the log. So stop selecting for accepts for a pause that doubles up to
     * {@link #ACCEPT_PAUSE_MAX_MILLIS} while failures go on, log once per episode, and resume when
     * the pause is over (descriptors may have been freed by then).
     */
    private void backOff(IOException e) {
        failedAccepts++;
        pauseMillis = pauseMillis == 0 ? ACCEPT_PAUSE_MIN_MILLIS : Math.min(ACCEPT_PAUSE_MAX_MILLIS, pauseMillis * 2);
        if (failedAccepts == 1) {
            log.warn("accept on {} failed: {}; pausing accepts (up to {} ms at a time) until it works again",
                    localAddress, e.toString(), ACCEPT_PAUSE_MAX_MILLIS);
        }
        if (key != null && key.isValid()) {
            key.interestOps(0);
            loop.schedule(() -> {
                if (key.isValid()) {
                    key.interestOps(SelectionKey.OP_ACCEPT);
                }
            }, pauseMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    private void hand(SocketChannel channel) {
        try {
            NioConnection.configure(channel);
            ConnectionHandler handler = acceptHandler.newHandler((InetSocketAddress) channel.getRemoteAddress());
            if (handler == null) {
                log.debug("refused a connection on {}", localAddress);
                channel.close();
                return;
            }
            EventLoop target = group.next();
            target.execute(() -> group.open(target, channel, null, handler, options));
        } catch (IOException | RuntimeException e) {
            log.debug("dropping an accepted connection on {}", localAddress, e);
            closeQuietly(channel);
        }
    }

    @Override
    public void onLoopClosing() {
        closeOnLoop();
    }

    /** Stops listening: new connections are refused once this returns. Existing ones are untouched. */
    @Override
    public void close() {
        loop.runOnLoop(this::closeOnLoop);
        if (loop.state() != EventLoop.State.TERMINATED && !loop.inLoop()) {
            try {
                await(closed, "closing the listening socket");
            } catch (IOException e) {
                log.warn("closing {} failed", localAddress, e);
            }
        }
        closeQuietly(server);
    }

    private void closeOnLoop() {
        if (key != null) {
            key.cancel();
        }
        closeQuietly(server);
        closed.complete(null);
    }

    private static void await(CompletableFuture<Void> step, String what) throws IOException {
        try {
            step.get(CLOSE_WAIT_MAX.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(what + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(what + " timed out");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted", e);
        }
    }

    static void closeQuietly(java.nio.channels.Channel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            log.debug("close failed", e);
        }
    }

    @Override
    public String toString() {
        return "acceptor[" + localAddress + "]";
    }
}
