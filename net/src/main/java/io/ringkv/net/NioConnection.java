package io.ringkv.net;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain TCP {@link Connection} on a non-blocking {@link SocketChannel}.
 *
 * <p>Threading: reads, interest changes, lingering and the close itself run on the owning loop;
 * writes go through the lock-free {@link OutboundQueue} from any thread; {@link #state} and
 * {@link #claimedBy} (set once) are the fields other threads consult.
 *
 * <pre>
 *   OPEN --closeAfterFlush--> OUTPUT_CLOSING --queue flushed, output shut down--> LINGERING --EOF or timeout--> CLOSED
 *   any --abort / I/O error / loop stop--> CLOSED
 * </pre>
 */
final class NioConnection implements Connection, SelectionHandler, OutboundQueue.Sink {
    private static final Logger log = LoggerFactory.getLogger(NioConnection.class);
    private static final VarHandle CLAIMED_BY;

    static {
        try {
            CLAIMED_BY = MethodHandles.lookup().findVarHandle(NioConnection.class, "claimedBy", ExclusiveOutbound.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    enum State { OPEN, OUTPUT_CLOSING, LINGERING, CLOSED }

    /** Reads in a row for one readiness event while each fills its buffer (see {@link #onReadable}). */
    static final int READS_PER_EVENT_MAX = 8;

    private final EventLoop loop;
    private final SocketChannel channel;
    private final ConnectionHandler handler;
    private final ChannelOptions options;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final OutboundQueue outbound;
    private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
    /** The producer that {@linkplain #claimOutbound claimed} the queue, or {@code null}; set once. */
    private volatile ExclusiveOutbound claimedBy;
    // Loop-confined below.
    private SelectionKey key;
    private ByteBuffer kept;
    private boolean readsSuspended;
    private boolean inputEnded;
    private boolean inputEndNotified;
    private long lingerBytes;

    NioConnection(EventLoop loop, SocketChannel channel, ConnectionHandler handler, ChannelOptions options)
            throws IOException {
        this.loop = loop;
        this.channel = channel;
        this.handler = handler;
        this.options = options;
        this.remote = (InetSocketAddress) channel.getRemoteAddress();
        this.local = (InetSocketAddress) channel.getLocalAddress();
        this.outbound = new OutboundQueue(this, options.writeHighWaterBytes(), options.writeLowWaterBytes());
    }

    /** Applies the socket options every connection gets. */
    static void configure(SocketChannel channel) throws IOException {
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    /** Registers for reading (or adopts {@code existingKey}) and opens the handler. Loop thread. */
    void open(SelectionKey existingKey) throws IOException {
        if (existingKey == null) {
            key = loop.register(channel, SelectionKey.OP_READ, this);
        } else {
            key = existingKey;
            key.attach(this);
            key.interestOps(SelectionKey.OP_READ);
        }
        log.debug("{} open", this);
        try {
            handler.onOpen(this);
        } catch (RuntimeException e) {
            if (state.getAndSet(State.CLOSED) != State.CLOSED) {
                closeNow(e, true);
            }
            throw e;
        }
    }

    @Override
    public EventLoop loop() {
        return loop;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public boolean write(ByteBuffer... group) {
        if (!enqueue(group)) {
            return false;
        }
        outbound.flush();
        return true;
    }

    @Override
    public boolean enqueue(ByteBuffer... group) {
        refuseIfClaimed();
        return enqueueInOrder(group);
    }

    private boolean enqueueInOrder(ByteBuffer[] group) {
        if (state.get() != State.OPEN) {
            return false;
        }
        outbound.enqueue(group, false);
        return true;
    }

    @Override
    public boolean writeUrgent(ByteBuffer... group) {
        refuseIfClaimed();
        if (state.get() != State.OPEN) {
            return false;
        }
        outbound.enqueue(group, true);
        outbound.flush();
        return true;
    }

    @Override
    public void flush() {
        outbound.flush();
    }

    @Override
    public ExclusiveOutbound claimOutbound() {
        ExclusiveOutbound handle = new ExclusiveOutbound() {
            @Override
            public boolean enqueue(ByteBuffer... group) {
                return enqueueInOrder(group);
            }

            @Override
            public long bytesEnqueued() {
                return NioConnection.this.bytesEnqueued();
            }

            @Override
            public long bytesWritten() {
                return NioConnection.this.bytesWritten();
            }
        };
        if (!CLAIMED_BY.compareAndSet(this, null, handle)) {
            throw new IllegalStateException(this + ": the outbound queue already has its sole producer");
        }
        return handle;
    }

    /** A write on the connection itself while a producer holds the queue is a wiring bug: fail it loudly. */
    private void refuseIfClaimed() {
        if (claimedBy != null) {
            throw new IllegalStateException(this + ": the outbound queue belongs to the producer that claimed it");
        }
    }

    @Override
    public long bytesEnqueued() {
        return outbound.enqueuedTotal();
    }

    @Override
    public long bytesWritten() {
        return outbound.writtenTotal();
    }

    @Override
    public long queuedBytes() {
        return outbound.queuedBytes();
    }

    @Override
    public boolean isWritable() {
        return outbound.isWritable();
    }

    @Override
    public void suspendReads() {
        loop.runOnLoop(() -> {
            readsSuspended = true;
            updateInterest();
        });
    }

    @Override
    public void resumeReads() {
        loop.runOnLoop(() -> {
            if (!readsSuspended || state.get() != State.OPEN) {
                return;
            }
            readsSuspended = false;
            updateInterest();
            if (kept != null || inputEnded) {
                // Kept bytes may hold a whole message: present them without waiting for the next
                // packet. As a task, not inline: resumeReads may be called from inside onRead,
                // while the loop's read buffer is still in use.
                loop.execute(this::readIfWanted);
            }
        });
    }

    private void readIfWanted() {
        if (!readsSuspended && state.get() == State.OPEN && key.isValid()) {
            onReadable();
        }
    }

    @Override
    public void closeAfterFlush() {
        if (state.compareAndSet(State.OPEN, State.OUTPUT_CLOSING)) {
            outbound.enqueueCloseMarker();
            outbound.flush();
            loop.schedule(() -> checkFlushProgress(-1), options.lingerTimeout());
        }
    }

    /** A peer that reads nothing of our last bytes for a whole linger timeout is reset. Loop thread. */
    private void checkFlushProgress(long queuedBefore) {
        if (state.get() != State.OUTPUT_CLOSING) {
            return;
        }
        long queued = outbound.queuedBytes();
        if (queued == queuedBefore) {
            abort(new IOException("peer stopped reading before the connection could close"));
            return;
        }
        loop.schedule(() -> checkFlushProgress(queued), options.lingerTimeout());
    }

    @Override
    public void abort(Throwable cause) {
        State previous = state.getAndSet(State.CLOSED);
        if (previous != State.CLOSED) {
            outbound.discard();
            loop.runOnLoop(() -> closeNow(cause, true));
        }
    }

    @Override
    public boolean isOpen() {
        return state.get() == State.OPEN;
    }

    State state() {
        return state.get();
    }

    boolean noDelay() {
        try {
            return channel.getOption(StandardSocketOptions.TCP_NODELAY);
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void onSelected(int readyOps) {
        if ((readyOps & SelectionKey.OP_WRITE) != 0) {
            // Drop OP_WRITE before flushing: the flusher asks for it again if the socket fills up.
            key.interestOps(key.interestOps() & ~SelectionKey.OP_WRITE);
            outbound.onSocketWritable();
        }
        boolean wanted = !readsSuspended || state.get() != State.OPEN;
        if ((readyOps & SelectionKey.OP_READ) != 0 && key.isValid() && wanted) {
            onReadable();
        }
    }

    @Override
    public void onLoopClosing() {
        abort(new IOException("event loop closed"));
    }

    /**
     * Reads until the socket has no more for now, at most {@link #READS_PER_EVENT_MAX} times. A
     * read that fills all the space it was given probably left more in the socket; reading it now
     * saves a trip through the selector per buffer (a large body came as 16 wake-ups and 16
     * {@code epoll_wait} calls per MiB). The cap keeps one busy peer from starving the loop's other
     * connections.
     */
    private void onReadable() {
        int reads = 0;
        while (readOnce() && ++reads < READS_PER_EVENT_MAX
                && state.get() == State.OPEN && !readsSuspended && !inputEnded && key.isValid()) {
            // the read filled its buffer: go on
        }
    }

    /** One read and its delivery; true when the read filled all the space it had. */
    private boolean readOnce() {
        ReadArena arena = loop.readArena();
        ByteBuffer buffer = arena.begin(kept == null ? 0 : kept.remaining() + 1);
        if (kept != null) {
            buffer.put(kept);
            kept = null;
        }
        boolean full = false;
        if (!inputEnded && buffer.hasRemaining()) {
            int read = readSocket(buffer);
            inputEnded = read < 0;
            full = read > 0 && !buffer.hasRemaining();
        }
        buffer.flip();
        int filled = buffer.limit();
        try {
            switch (state.get()) {
                case OPEN -> deliver(buffer);
                case OUTPUT_CLOSING, LINGERING -> discard(buffer);
                case CLOSED -> buffer.clear();
            }
        } finally {
            arena.end(filled);
        }
        return full;
    }

    @Override
    public ByteBuffer retain(ByteBuffer slice) {
        ReadArena arena = loop.inLoop() ? loop.readArena() : null;
        if (arena == null || !arena.mayBeInCurrentRead(slice)) {
            return slice; // not the loop's memory (a payload gathered into an array of its own), or no read in progress
        }
        arena.markRetained();
        return slice.asReadOnlyBuffer();
    }

    private int readSocket(ByteBuffer buffer) {
        try {
            int read = channel.read(buffer);
            if (read > 0) {
                loop.countRead(read);
            }
            return read;
        } catch (IOException e) {
            abort(e);
            return 0;
        }
    }

    private void deliver(ByteBuffer buffer) {
        int before = buffer.remaining();
        if (before > 0) {
            handler.onRead(this, buffer);
        }
        if (state.get() != State.OPEN) {
            return;
        }
        if (buffer.hasRemaining()) {
            boolean progressed = buffer.remaining() < before;
            keep(buffer, before);
            if (progressed && kept != null && !readsSuspended) {
                // The handler took some bytes and may take more: offer the rest again now.
                loop.execute(this::readIfWanted);
            }
        }
        if (inputEnded && !inputEndNotified) {
            inputEndNotified = true;
            updateInterest();
            handler.onInputClosed(this);
        }
    }

    private void keep(ByteBuffer buffer, int before) {
        if (buffer.remaining() == loop.readArena().capacity() && buffer.remaining() == before && !readsSuspended) {
            // The handler consumed nothing from a full buffer and still wants input: it can never
            // make progress, so fail loudly instead of spinning on a readable socket.
            abort(new IOException("read buffer full and nothing consumed; message larger than "
                    + loop.readArena().capacity() + " bytes"));
            return;
        }
        kept = ByteBuffer.allocate(buffer.remaining()).put(buffer).flip();
    }

    /** Input after a close was requested is read only to be dropped (see {@link #startLingering}). */
    private void discard(ByteBuffer buffer) {
        lingerBytes += buffer.remaining();
        buffer.clear();
        boolean done = inputEnded || lingerBytes > options.lingerBytesMax();
        if (done && state.compareAndSet(State.LINGERING, State.CLOSED)) {
            closeNow(null, false);
        } else if (done) {
            updateInterest(); // still flushing: stop reading until lingering starts
        }
    }

    /** Loop thread: read interest unless suspended or ended (always while lingering), write interest while awaited. */
    private void updateInterest() {
        if (key == null || !key.isValid()) {
            return;
        }
        State current = state.get();
        boolean closing = current == State.LINGERING || current == State.OUTPUT_CLOSING;
        boolean read = !inputEnded && (closing ? lingerBytes <= options.lingerBytesMax() : !readsSuspended);
        boolean write = outbound.state() == OutboundQueue.State.AWAITING_WRITABLE;
        key.interestOps((read ? SelectionKey.OP_READ : 0) | (write ? SelectionKey.OP_WRITE : 0));
    }

    @Override
    public long write(ByteBuffer[] buffers, int offset, int length) throws IOException {
        long written = channel.write(buffers, offset, length);
        if (written > 0) {
            loop.countWritten(written);
        }
        return written;
    }

    @Override
    public void awaitWritable() {
        loop.runOnLoop(this::updateInterest);
    }

    @Override
    public void onCloseMarkerWritten() {
        loop.runOnLoop(this::startLingering);
    }

    /**
     * Always a task of its own, even on the loop: the drain is noticed inside some producer's
     * enqueue or flush, and that producer may hold locks the handler takes to resume producers.
     */
    @Override
    public void onWritable() {
        try {
            loop.execute(() -> {
                if (state.get() == State.OPEN) {
                    handler.onWritable(this);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            log.debug("{} loop stopped, writability not announced", this);
        }
    }

    @Override
    public void onWriteFailed(IOException cause) {
        abort(cause);
    }

    /** RFC 9112 §9.6: close the sending side first, then drain input briefly, so the peer reads our last response. */
    private void startLingering() {
        if (!state.compareAndSet(State.OUTPUT_CLOSING, State.LINGERING)) {
            return;
        }
        kept = null;
        try {
            channel.shutdownOutput();
        } catch (IOException e) {
            abort(e);
            return;
        }
        if (inputEnded || lingerBytes > options.lingerBytesMax()) {
            state.set(State.CLOSED);
            closeNow(null, false);
            return;
        }
        updateInterest();
        loop.schedule(this::endLingering, options.lingerTimeout());
    }

    private void endLingering() {
        if (state.compareAndSet(State.LINGERING, State.CLOSED)) {
            closeNow(null, false);
        }
    }

    /** Loop thread; the caller has moved the state to CLOSED, so this runs once. */
    private void closeNow(Throwable cause, boolean reset) {
        outbound.discard();
        kept = null;
        if (key != null) {
            key.cancel();
        }
        try {
            if (reset && channel.isOpen()) {
                channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            }
            channel.close();
        } catch (IOException e) {
            log.debug("{} close failed", this, e);
        }
        log.debug("{} closed{}", this, cause == null ? "" : " (" + cause + ")");
        try {
            handler.onClosed(this, cause);
        } catch (RuntimeException e) {
            log.error("{}: onClosed failed", this, e);
        }
    }

    @Override
    public String toString() {
        return "conn[" + local + "<-" + remote + " " + state.get() + "]";
    }
}
