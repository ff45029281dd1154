package io.ringkv.http.client.internal;

import io.ringkv.http.LogText;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Connection;
import io.ringkv.http.h2.Http2Event;
import io.ringkv.http.h2.Role;
import io.ringkv.http.h2.StreamIdMap;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection of the client (prior knowledge, RFC 9113 §3.3; h2 by ALPN; or an
 * HTTP/1.1 connection switched by {@code Upgrade: h2c}, {@link #openUpgraded}): many exchanges,
 * one per stream, over http-core's {@link Http2Connection} in the client role.
 *
 * <p>Threading: {@code protocol} is guarded by {@code lock}, held for one short step per call:
 * the protocol operation plus {@link Connection#enqueue} of the frames it produced, so stream
 * ids, HPACK blocks and DATA leave in the order they were made. The socket write
 * ({@link Connection#flush}) always happens after the lock is released, by whichever thread wins
 * the flush. The connection preface, frames the protocol answers by itself on receipt
 * (SETTINGS/PING ACK, RST_STREAM), PINGs and WINDOW_UPDATEs jump the queue with
 * {@link Connection#writeUrgent}; an RST_STREAM we decide on keeps its place behind the
 * stream's HEADERS. {@link ConnectionHandler} callbacks run on the event loop; exchanges are
 * told about their stream from there. The map of exchanges by stream id is guarded by the same
 * lock (it is written from any thread): the loop looks up each event's exchange under it, a hold
 * of its own per event, and calls the exchange after releasing it.
 * Liveness ({@link H2Liveness}): a loop timer sends a PING after a quiet interval and closes the
 * connection when nothing answers it in time.
 * Stream slots are reserved with {@link #tryReserve()} before a stream is opened, so the pool
 * never opens more streams than the peer's SETTINGS_MAX_CONCURRENT_STREAMS.
 * Pushed responses (RFC 9113 §8.4) run as exchanges of their own, in the same map under the
 * promised stream; they take no slot, but the connection stays open for them while draining.
 * Lifecycle: one {@link H2ConnectionState}, changed by {@link #move} only (compare-and-set, any
 * thread); a connection that stopped accepting streams closes once none is left.
 */
final class H2Connection implements ConnectionHandler, OpenConnections.Member {
    private static final Logger log = LoggerFactory.getLogger(H2Connection.class);

    private final Route route;
    private final H2Codec codec;
    private final OpenConnections openConnections;
    private final Http2Connection protocol;
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * The exchange of each open stream: ours ({@link H2Exchange}) and pushed ones
     * ({@link H2PushedExchange}, under the promised stream). Guarded by {@code lock}.
     */
    private final StreamIdMap<H2Stream> streams = new StreamIdMap<>();
    /** Pushed exchanges in {@link #streams}; guarded by {@code lock}. */
    private int pushesOpen;
    private final AtomicInteger reserved = new AtomicInteger();
    /** Completes once the peer's first SETTINGS arrived (its stream limit is known), fails if the connection dies first. */
    private final CompletableFuture<H2Connection> ready = new CompletableFuture<>();
    private volatile Connection connection;
    private volatile long streamsMax = 1;
    /** Changed by {@link #move} only. */
    private volatile H2ConnectionState state = H2ConnectionState.CONNECTING;
    private final IdleExpiry idleExpiry;
    /** The events list of reads, reused from one to the next ({@link #takeReadEvents}); loop-confined. */
    private List<Http2Event> readEvents;
    /** Responses whose head arrived in the read being dispatched; loop-confined. */
    private final List<H2Response> headsToPublish = new java.util.ArrayList<>(4);

    /** Loop-confined. */
    private final H2Liveness liveness;

    H2Connection(Route route, H2Codec codec, Http2Config config, H2Liveness liveness, OpenConnections openConnections) {
        this.route = route;
        this.codec = codec;
        this.openConnections = openConnections;
        this.liveness = liveness;
        this.protocol = new Http2Connection(Role.CLIENT, config);
        this.idleExpiry = new IdleExpiry(codec.idleTimeout(), this::expireIfIdle);
    }

    @Override
    public Route route() {
        return route;
    }

    @Override
    public java.net.http.HttpClient.Version version() {
        return java.net.http.HttpClient.Version.HTTP_2;
    }

    /** Streams open now, ours and pushed ones; any thread. */
    @Override
    public int exchangesInFlight() {
        lock.lock();
        try {
            return streams.size();
        } finally {
            lock.unlock();
        }
    }

    private static final java.lang.invoke.VarHandle STATE;

    static {
        try {
            STATE = java.lang.invoke.MethodHandles.lookup().findVarHandle(H2Connection.class, "state", H2ConnectionState.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The one way the lifecycle changes (see {@link H2ConnectionState}); any thread. */
    private void move(H2ConnectionState.Event event) {
        H2ConnectionState from;
        do {
            from = state;
        } while (!STATE.compareAndSet(this, from, from.next(event)));
    }

    /** The current lifecycle state (for tests and diagnostics). */
    H2ConnectionState state() {
        return state;
    }

    CompletableFuture<H2Connection> ready() {
        return ready;
    }

    boolean isOpen() {
        Connection open = connection;
        return state == H2ConnectionState.ACCEPTING && open != null && open.isOpen();
    }

    /** The TLS session of an h2 connection; empty for h2c. */
    java.util.Optional<javax.net.ssl.SSLSession> sslSession() {
        return connection instanceof io.ringkv.net.tls.TlsConnection tls
                ? java.util.Optional.of(tls.session()) : java.util.Optional.empty();
    }

    /** Takes a stream slot if the peer's limit allows another stream and no GOAWAY was seen. */
    boolean tryReserve() {
        for (int current = reserved.get(); state.acceptsStreams() && current < streamsMax; current = reserved.get()) {
            if (reserved.compareAndSet(current, current + 1)) {
                idleExpiry.busy();
                return true;
            }
        }
        return false;
    }

    /** Gives a slot back (the stream ended or was never opened); waiting exchanges may take it. */
    void release() {
        if (reserved.decrementAndGet() == 0) {
            scheduleIdleExpiry();
        }
        codec.capacityFreed(route);
    }

    // ---- ConnectionHandler (event loop) ----

    @Override
    public void onOpen(Connection opened) {
        this.connection = opened;
        move(H2ConnectionState.Event.OPENED);
        openConnections.opened(this);
        List<ByteBuffer> preface;
        lock.lock();
        try {
            protocol.start(); // RFC 9113 §3.4: preface, SETTINGS, then the larger connection window
            preface = protocol.drainOutput();
        } finally {
            lock.unlock();
        }
        writePreface(opened, preface);
        startLiveness(opened);
    }

    /**
     * Event loop, instead of {@link #onOpen}: an HTTP/1.1 connection switched to HTTP/2 by
     * {@code Upgrade: h2c} (RFC 7540 §3.2). The preface and SETTINGS go out as on a new
     * connection; the upgrade request, already sent, continues as stream 1, which holds a
     * stream slot from the start and belongs to {@code exchange}.
     */
    void openUpgraded(Connection opened, H2Exchange exchange, boolean headRequest) {
        this.connection = opened;
        move(H2ConnectionState.Event.OPENED);
        openConnections.adopted(this); // the socket was counted when it opened for HTTP/1.1
        if (!tryReserve()) {
            throw new IllegalStateException("a new connection has a stream slot for stream 1");
        }
        List<ByteBuffer> preface;
        lock.lock();
        try {
            protocol.start();
            int id = protocol.openUpgradeStream(headRequest);
            exchange.adoptUpgradeStream(this, id);
            streams.put(id, exchange);
            preface = protocol.drainOutput();
        } finally {
            lock.unlock();
        }
        writePreface(opened, preface);
        startLiveness(opened);
    }

    /**
     * The connection preface goes ahead of everything, urgent frames included (RFC 9113 §3.4):
     * queued as an ordinary group, it could be overtaken by the SETTINGS ACK that the server's
     * SETTINGS call for, whenever its own flush lost to a thread still finishing an earlier
     * write. After an {@code Upgrade: h2c} that thread is the caller that wrote the request, and
     * Jetty answered the ACK-first connection with GOAWAY "invalid_preface" (about 1 upgrade in
     * 25 on a loaded machine). Urgent groups leave in the order they were queued, and nothing
     * urgent exists before the preface, so it is first on the wire.
     */
    private static void writePreface(Connection opened, List<ByteBuffer> preface) {
        opened.writeUrgent(buffers(preface));
    }

    private void startLiveness(Connection opened) {
        if (liveness.enabled()) {
            scheduleLivenessCheck(liveness.start(opened.loop().nanoTime()));
        }
    }

    private void scheduleLivenessCheck(long delayNanos) {
        connection.loop().schedule(this::checkLiveness, delayNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Event loop: PING after a quiet interval; close when a PING stays unanswered (RFC 9113 §6.7). */
    private void checkLiveness() {
        Connection open = connection;
        if (!open.isOpen()) {
            return;
        }
        H2Liveness.Decision decision = liveness.check(open.loop().nanoTime());
        switch (decision.action()) {
            case PING -> sendPing(open);
            case CLOSE -> {
                log.debug("{} PING unanswered: closing", this);
                move(H2ConnectionState.Event.PING_UNANSWERED);
                codec.remove(this);
                open.abort(new IOException("HTTP/2 connection to " + route.authority() + " did not answer PING"));
                return;
            }
            case NONE -> {
            }
        }
        scheduleLivenessCheck(decision.delayNanos());
    }

    private void sendPing(Connection open) {
        List<ByteBuffer> frames;
        lock.lock();
        try {
            protocol.ping(open.loop().nanoTime());
            frames = protocol.drainOutput();
        } finally {
            lock.unlock();
        }
        open.writeUrgent(buffers(frames));
    }

    @Override
    public void onRead(Connection conn, ByteBuffer input) {
        if (input.hasRemaining()) {
            liveness.onRead(conn.loop().nanoTime());
        }
        List<Http2Event> events = takeReadEvents();
        List<ByteBuffer> answers;
        lock.lock();
        try {
            protocol.receive(input, conn.loop().nanoTime(), events);
            answers = protocol.drainOutput();
        } finally {
            lock.unlock();
        }
        if (!answers.isEmpty()) {
            conn.writeUrgent(buffers(answers));
        }
        for (int i = 0; i < events.size(); i++) { // an index, not an iterator: this runs per read
            dispatch(events.get(i));
        }
        events.clear();
        readEvents = events;
        // After every event of this read: see H2Response.publishHead.
        for (int i = 0; i < headsToPublish.size(); i++) {
            headsToPublish.get(i).publishHead();
        }
        headsToPublish.clear();
    }

    /**
     * The list this read's events go into: the one the last read used, unless a read is being
     * dispatched further up this thread's stack (it is taken while in use, so a nested read
     * gets a list of its own).
     */
    private List<Http2Event> takeReadEvents() {
        List<Http2Event> events = readEvents;
        readEvents = null;
        return events != null ? events : new java.util.ArrayList<>(4);
    }

    // Each handler looks its stream's exchange up when it runs, not when the read was taken: an
    // earlier event of the same read may have ended that exchange or registered a pushed one.
    private void dispatch(Http2Event event) {
        switch (event) {
            case Http2Event.HeadersReceived e -> onHeaders(e);
            case Http2Event.DataReceived e -> onData(e);
            case Http2Event.StreamReset e -> {
                H2Stream owner = streamOwner(e.streamId());
                if (owner != null) {
                    owner.onReset(e.code(), e.byPeer(), e.reason());
                }
            }
            case Http2Event.WindowOpened e -> onWindowOpened(e.streamId());
            case Http2Event.SettingsReceived e -> onSettings(e.peer().maxConcurrentStreams());
            case Http2Event.GoAwayReceived e -> onGoAway(e.lastStreamId(), e.code(), e.debug());
            case Http2Event.ConnectionFailed e -> onProtocolFailure(e.code(), e.reason());
            case Http2Event.PingAcknowledged e -> log.debug("{} ping acknowledged", this);
            case Http2Event.PushPromised e -> onPushPromise(e);
        }
    }

    private void onHeaders(Http2Event.HeadersReceived e) {
        H2Stream owner = streamOwner(e.streamId());
        if (owner != null && owner.response().onHeaders(e.fields(), e.endStream(), e.trailers())) {
            headsToPublish.add(owner.response());
        }
    }

    /** The initiating exchange decides; if it is gone (finished or reset), nobody wants the push. */
    private void onPushPromise(Http2Event.PushPromised e) {
        if (!(streamOwner(e.streamId()) instanceof H2Exchange initiating)) {
            reset(e.promisedStreamId(), ErrorCode.REFUSED_STREAM);
            return;
        }
        initiating.onPushPromise(e.promisedStreamId(), e.fields());
    }

    /** Event loop, before any frame of the promised stream is dispatched. */
    void registerPush(int promisedStreamId, H2PushedExchange pushed) {
        lock.lock();
        try {
            streams.put(promisedStreamId, pushed);
            pushesOpen++;
        } finally {
            lock.unlock();
        }
    }

    /** The payload aliases what the connection read; the exchange's body pipe retains or copies it. */
    private void onData(Http2Event.DataReceived e) {
        ByteBuffer data = e.data();
        H2Stream owner = streamOwner(e.streamId());
        if (owner == null) {
            consumed(e.streamId(), data.remaining()); // nobody will take it: credit the connection now
            return;
        }
        owner.response().onData(data, connection, e.endStream());
    }

    /** Request bodies enqueue what the new window allows; one flush sends it all, in one write. */
    private void onWindowOpened(int streamId) {
        if (streamId == 0) {
            // Every exchange, from a copy taken under the lock: they enqueue, and may publish, outside it.
            for (H2Stream stream : allStreams()) {
                if (stream instanceof H2Exchange exchange) { // a pushed stream sends nothing
                    exchange.onWindowOpened();
                }
            }
        } else if (streamOwner(streamId) instanceof H2Exchange exchange) {
            exchange.onWindowOpened();
        }
        flush();
    }

    private void onSettings(long peerStreamsMax) {
        streamsMax = peerStreamsMax;
        ready.complete(this);
        codec.capacityFreed(route);
    }

    /** RFC 9113 §6.8: streams above lastStreamId were not processed and may be retried elsewhere. */
    private void onGoAway(int lastStreamId, ErrorCode code, String debug) {
        log.debug("{} GOAWAY last={} code={} debug={}", this, lastStreamId, code, LogText.of(debug));
        move(H2ConnectionState.Event.GOAWAY_RECEIVED);
        codec.remove(this);
        List<H2Exchange> refused = new java.util.ArrayList<>();
        List<String> reasons = new java.util.ArrayList<>();
        lock.lock();
        try {
            for (int id : streams.ids()) {
                if (id > lastStreamId && streams.get(id) instanceof H2Exchange exchange) {
                    refused.add(exchange);
                    reasons.add("stream " + id + " not processed (GOAWAY " + code + ")");
                }
            }
        } finally {
            lock.unlock();
        }
        for (int i = 0; i < refused.size(); i++) {
            refused.get(i).onRefused(reasons.get(i));
        }
        closeIfDrained();
    }

    private void onProtocolFailure(ErrorCode code, String reason) {
        move(H2ConnectionState.Event.PROTOCOL_FAILED);
        connection.closeAfterFlush(); // the GOAWAY is already queued
        failAll(new IOException("HTTP/2 connection error " + code + ": " + reason));
    }

    @Override
    public void onClosed(Connection conn, Throwable cause) {
        // Under the lock, as open() tests it: an open() that got past its test has registered its
        // exchange by now, so failAll below reaches it; a later one is turned away and goes elsewhere.
        lock.lock();
        try {
            move(H2ConnectionState.Event.SOCKET_CLOSED);
        } finally {
            lock.unlock();
        }
        openConnections.closed(this);
        codec.remove(this);
        IOException error = new IOException("HTTP/2 connection closed" + (cause == null ? "" : ": " + cause), cause);
        ready.completeExceptionally(error);
        failAll(error);
    }

    private void failAll(IOException error) {
        allStreams().forEach(stream -> stream.onConnectionFailed(error));
    }

    /** The exchange of a stream we opened, or of a pushed one; {@code null} when none is left. */
    private H2Stream streamOwner(int streamId) {
        lock.lock();
        try {
            return streams.get(streamId);
        } finally {
            lock.unlock();
        }
    }

    /** Every open stream's exchange, in a list of their own (they are called outside the lock). */
    private List<H2Stream> allStreams() {
        lock.lock();
        try {
            return streams.values();
        } finally {
            lock.unlock();
        }
    }

    // ---- calls from exchanges (any thread) ----

    /**
     * Opens a stream for {@code exchange} in one critical step (id, HPACK, enqueue), then flushes
     * outside it, unless {@code endStream} is false: a body follows, and its sender flushes the
     * HEADERS with the first DATA (at the latest when it subscribes), in one socket write (one
     * TLS record) instead of two. Returns the stream id, or -1 if the connection can no longer
     * open streams; nothing of the request was sent then, so it may go to another connection.
     */
    int open(H2Exchange exchange, List<io.ringkv.http.hpack.HeaderField> fields, boolean endStream) {
        int id;
        boolean queued;
        lock.lock();
        try {
            if (!state.acceptsStreams() || !protocol.canOpenStream()) {
                return -1;
            }
            id = protocol.openStream(fields, endStream);
            queued = connection.enqueue(buffers(protocol.drainOutput()));
            if (queued) {
                // Registered before the lock is released: no event of the stream can be read before.
                exchange.streamOpened(id, endStream);
                streams.put(id, exchange);
            } else {
                // The socket began closing (the peer's FIN, a failed write) before onClosed ran:
                // the HEADERS were dropped and the server never saw the stream, as for a stream
                // above a GOAWAY's last-stream-id. Open nothing more here; the protocol state of
                // this stream stays behind with the dead connection.
                move(H2ConnectionState.Event.HEADERS_DROPPED);
            }
        } finally {
            lock.unlock();
        }
        if (!queued) {
            log.debug("{} closing: stream {} not sent, the request goes elsewhere", this, id);
            codec.remove(this);
            return -1;
        }
        if (endStream) {
            connection.flush();
        }
        return id;
    }

    /**
     * Queues as much of {@code data} as the send windows allow (advancing its position) without
     * flushing; call {@link #flush()} after leaving any lock of the caller's. Returns -1 if the
     * stream can no longer send (it was reset, or the connection failed or is closing).
     */
    int enqueueData(int streamId, ByteBuffer data, boolean endStream) {
        lock.lock();
        try {
            if (!protocol.streamState(streamId).canSend()) {
                return -1;
            }
            int taken = protocol.sendData(streamId, data, endStream);
            if (!connection.enqueue(buffers(protocol.drainOutput()))) {
                // Dropped: the body cannot go on, so its publisher is not asked for more.
                return -1;
            }
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes queued on the connection and not yet written. */
    long queuedBytes() {
        Connection open = connection;
        return open == null ? 0 : open.queuedBytes();
    }

    void flush() {
        connection.flush();
    }

    /** The application took {@code bytes} of the stream's DATA: credit goes back in batches. */
    void consumed(int streamId, long bytes) {
        List<ByteBuffer> updates;
        lock.lock();
        try {
            protocol.consumed(streamId, (int) Math.min(bytes, Integer.MAX_VALUE));
            updates = protocol.drainOutput();
        } finally {
            lock.unlock();
        }
        if (!updates.isEmpty()) {
            connection.writeUrgent(buffers(updates));
        }
    }

    /** Resets the stream if it is still open (RFC 9113 §6.4) and forgets the exchange. */
    void reset(int streamId, ErrorCode code) {
        List<ByteBuffer> frames = List.of();
        lock.lock();
        try {
            if (protocol.streamState(streamId) != io.ringkv.http.h2.StreamState.CLOSED
                    && protocol.streamState(streamId) != io.ringkv.http.h2.StreamState.IDLE) {
                protocol.resetStream(streamId, code);
                frames = protocol.drainOutput();
            }
        } finally {
            lock.unlock();
        }
        if (!frames.isEmpty()) {
            // In order, not urgent: the stream's HEADERS may still be queued, and an RST_STREAM
            // ahead of them would name an idle stream, a connection error (RFC 9113 §6.4).
            connection.write(buffers(frames));
        }
    }

    /** The exchange is finished with its stream: the slot is free again. Called once per stream. */
    void streamDone(int streamId) {
        H2Stream removed;
        boolean noPushLeft;
        lock.lock();
        try {
            removed = streams.remove(streamId);
            if (removed instanceof H2PushedExchange) {
                pushesOpen--;
            }
            noPushLeft = pushesOpen == 0;
        } finally {
            lock.unlock();
        }
        if (removed instanceof H2Exchange) {
            release();
            closeIfDrained();
        } else if (removed != null) {
            if (noPushLeft && reserved.get() == 0) {
                scheduleIdleExpiry();
            }
            closeIfDrained();
        }
    }

    private void closeIfDrained() {
        if (state.acceptsStreams()) {
            return;
        }
        boolean drained;
        lock.lock();
        try {
            drained = streams.isEmpty();
        } finally {
            lock.unlock();
        }
        if (drained) {
            connection.closeAfterFlush();
        }
    }

    private boolean noPushes() {
        lock.lock();
        try {
            return pushesOpen == 0;
        } finally {
            lock.unlock();
        }
    }

    /** Closes the connection politely (GOAWAY NO_ERROR, RFC 9113 §6.8) when the client shuts down or it idled out. */
    void shutdown() {
        move(H2ConnectionState.Event.SHUTDOWN);
        Connection open = connection;
        if (open == null) {
            return;
        }
        lock.lock();
        try {
            protocol.goAway(ErrorCode.NO_ERROR, "client_shutdown");
            open.enqueue(buffers(protocol.drainOutput()));
        } finally {
            lock.unlock();
        }
        open.closeAfterFlush();
    }

    private void scheduleIdleExpiry() {
        Connection open = connection;
        if (open != null && open.isOpen() && state.acceptsStreams()) {
            idleExpiry.idle(open.loop());
        }
    }

    /** Loop thread: idle for the whole idle timeout, unless a stream was reserved or a push runs meanwhile. */
    private void expireIfIdle() {
        if (reserved.get() == 0 && noPushes()) {
            codec.remove(this);
            shutdown();
        }
    }

    /**
     * The list as an array, allocated once at its size (toArray with a generator allocates an
     * empty array first): it runs on every stream opened and every read that answers.
     */
    private static ByteBuffer[] buffers(List<ByteBuffer> list) {
        return list.toArray(new ByteBuffer[list.size()]);
    }

    @Override
    public String toString() {
        // Sizes read without the lock: a log line may come from any thread, and an approximate count does.
        return "H2Connection[" + route.authority() + ", " + streams.size() + " streams, " + pushesOpen + " pushed]";
    }
}
