package io.ringkv.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An outbound connection being established: waits for OP_CONNECT or its timeout, whichever first.
 *
 * <p>Threading: confined to the chosen loop; the future completes on that loop (after the
 * handler's {@code onOpen}), so dependents should run asynchronously on their own executor.
 */
final class PendingConnect implements SelectionHandler {
    private static final Logger log = LoggerFactory.getLogger(PendingConnect.class);

    private final EventLoopGroup group;
    private final EventLoop loop;
    private final InetSocketAddress remote;
    /** {@code null}: the OS picks the local address. */
    private final InetAddress local;
    private final ChannelOptions options;
    private final ConnectionHandler handler;
    private final CompletableFuture<Connection> result;
    private SocketChannel channel;
    private SelectionKey key;
    private ScheduledTask timeout;

    PendingConnect(EventLoopGroup group, EventLoop loop, InetSocketAddress remote, InetAddress local,
                   ChannelOptions options, ConnectionHandler handler, CompletableFuture<Connection> result) {
        this.group = group;
        this.loop = loop;
        this.remote = remote;
        this.local = local;
        this.options = options;
        this.handler = handler;
        this.result = result;
    }

    /** Loop thread. */
    void start(Duration connectTimeout) {
        try {
            if (remote.isUnresolved()) {
                throw new java.net.UnknownHostException(remote.getHostString());
            }
            channel = SocketChannel.open();
            NioConnection.configure(channel);
            if (local != null) {
                channel.bind(new InetSocketAddress(local, 0));
            }
            if (channel.connect(remote)) {
                finish();
                return;
            }
            key = loop.register(channel, SelectionKey.OP_CONNECT, this);
            timeout = loop.schedule(this::onTimeout, connectTimeout);
            // A caller that gives up (cancel) releases the socket at once.
            result.whenComplete((connection, failure) -> {
                if (result.isCancelled()) {
                    loop.runOnLoop(() -> fail(null));
                }
            });
        } catch (IOException | RuntimeException e) {
            fail(e);
        }
    }

    @Override
    public void onSelected(int readyOps) {
        try {
            if (channel.finishConnect()) {
                finish();
            }
        } catch (IOException e) {
            fail(e);
        }
    }

    @Override
    public void onLoopClosing() {
        fail(new IOException("event loop closed while connecting to " + remote));
    }

    private void onTimeout() {
        if (!result.isDone()) {
            fail(new ConnectTimeoutException("connect to " + remote + " timed out"));
        }
    }

    private void finish() throws IOException {
        if (timeout != null) {
            timeout.cancel();
        }
        if (result.isDone()) { // cancelled meanwhile
            fail(null);
            return;
        }
        NioConnection connection = group.open(loop, channel, key, handler, options);
        if (connection != null) {
            result.complete(connection);
        } else {
            result.completeExceptionally(new IOException("connection to " + remote + " closed while opening"));
        }
    }

    private void fail(Throwable cause) {
        if (timeout != null) {
            timeout.cancel();
        }
        if (key != null) {
            key.cancel();
        }
        if (channel != null) {
            Acceptor.closeQuietly(channel);
        }
        if (cause != null && result.completeExceptionally(cause)) {
            log.debug("connect to {} failed: {}", remote, cause.toString());
        }
    }
}
