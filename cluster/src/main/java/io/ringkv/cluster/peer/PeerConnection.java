package io.ringkv.cluster.peer;

import io.ringkv.http.Headers;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Connection;
import io.ringkv.http.h2.Http2Event;
import io.ringkv.http.h2.Role;
import io.ringkv.http.h2.StreamIdMap;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import io.ringkv.net.ScheduledTask;
import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection to a peer (prior knowledge over cleartext, h2 by ALPN over TLS), on one
 * event loop, carrying that loop's requests to the peer as streams of http-core's
 * {@link Http2Connection}.
 *
 * <p>Threading: loop-confined. Every method runs on {@link #loop}: net calls the
 * {@link ConnectionHandler} methods there, and {@link H2PeerTransport} hops to the loop before it
 * submits. So nothing here takes a lock, and a request made on the loop (a coordinator answering a
 * client there) is framed, written and answered without waking another thread. Frames made while
 * the loop handles one iteration's reads leave together: {@link #scheduleFlush} writes once, after
 * the iteration's I/O.
 *
 * <p>Lifecycle ({@link PeerConnectionState}, changed by {@link #move} only): {@code CONNECTING}
 * until the socket (and TLS) is up and the peer's first SETTINGS arrived (its stream limit known;
 * requests wait until then), {@code OPEN}, {@code DRAINING} after a GOAWAY, a connection error or
 * when idle (no new streams; closes once the last ends), {@code CLOSED} when the socket closed,
 * every exchange failed or moved to another connection.
 * Liveness: a PING after {@code pingInterval} without a read, the connection given up when none
 * comes back within {@code pingTimeout}.
 */
final class PeerConnection implements ConnectionHandler {
    private static final Logger log = LoggerFactory.getLogger(PeerConnection.class);

    /** What the connection tells the transport that owns it. */
    interface Owner {
        /** The connection takes no new requests (GOAWAY, idle, closed): the next request to the origin opens another. */
        void retired(PeerConnection connection);

        /** Sends {@code exchange} again, on another connection: the peer refused its stream unprocessed. */
        void retry(PeerExchange exchange);

        /** The connection opened (for the count of connections opened). */
        void opened(PeerConnection connection);
    }

    private final PeerOrigin origin;
    private final EventLoop loop;
    private final Owner owner;
    private final Http2Connection protocol;
    private final Map<String, String> lowerCaseNames;
    private final long pingIntervalNanos;
    private final long pingTimeoutNanos;
    private final long idleCloseNanos;
    private final int waitingMax;
    private final StreamIdMap<PeerExchange> streams = new StreamIdMap<>();
    /** Requests waiting for the connection to open, or for a stream slot. */
    private final ArrayDeque<PeerExchange> waiting = new ArrayDeque<>();
    /** Exchanges whose request body waits for the peer's window. */
    private final List<PeerExchange> blocked = new ArrayList<>(2);
    private final Runnable flushTask = this::flushNow;
    private final Runnable livenessTask = this::checkLiveness;
    private PeerConnectionState state = PeerConnectionState.CONNECTING;
    private Connection connection;
    private boolean flushScheduled;
    /** While {@link #onRead} dispatches: frames made meanwhile leave with its own write at its end. */
    private boolean reading;
    private List<Http2Event> readEvents = new ArrayList<>();
    private long lastReadNanos;
    private long lastUsedNanos;
    private long pingSentNanos;
    private ScheduledTask liveness;
    /** Streams open now, for the transport's stats (read from other threads). */
    private volatile int streamsOpen;

    PeerConnection(PeerOrigin origin, EventLoop loop, Owner owner, Http2Config config, Map<String, String> lowerCaseNames,
                   java.time.Duration pingInterval, java.time.Duration pingTimeout, java.time.Duration idleClose, int waitingMax) {
        this.origin = origin;
        this.loop = loop;
        this.owner = owner;
        this.protocol = new Http2Connection(Role.CLIENT, config);
        this.lowerCaseNames = lowerCaseNames;
        this.pingIntervalNanos = pingInterval.toNanos();
        this.pingTimeoutNanos = pingTimeout.toNanos();
        this.idleCloseNanos = idleClose.toNanos();
        this.waitingMax = waitingMax;
        this.lastUsedNanos = loop.nanoTime();
    }

    PeerOrigin origin() {
        return origin;
    }

    PeerConnectionState state() {
        return state;
    }

    /** Whether a new request may go here (it is connecting or open, not draining or closed). */
    boolean takesRequests() {
        return state.takesRequests();
    }

    /** The one way the lifecycle changes. */
    private void move(PeerConnectionState.Event event) {
        state = state.next(event);
    }

    int streamsOpen() {
        return streamsOpen;
    }

    /** Sends {@code exchange} now, or as soon as the connection opens or a stream slot frees. */
    void submit(PeerExchange exchange) {
        if (!takesRequests()) {
            owner.retry(exchange);
            return;
        }
        lastUsedNanos = loop.nanoTime();
        exchange.carrier = this;
        if (exchange.timer == null) {
            // Through the carrier: a retried exchange keeps its deadline on the connection that took it over.
            exchange.timer = loop.schedule(() -> exchange.carrier.timedOut(exchange), exchange.request.timeout());
        }
        if (state == PeerConnectionState.OPEN && waiting.isEmpty() && protocol.canOpenStream()) {
            start(exchange);
            scheduleFlush();
        } else if (waiting.size() >= waitingMax) {
            exchange.fail(new IOException(waitingMax + " requests to " + origin + " already wait for a stream; "
                    + exchange.request + " is refused"));
        } else {
            waiting.add(exchange);
        }
    }

    /** The connect or the TLS handshake failed: every waiting exchange fails with {@code cause}. */
    void connectFailed(IOException cause) {
        shutDown(cause);
    }

    /**
     * Gives the connection up unless it is open (the peer's SETTINGS arrived) within {@code bound}
     * from now: a peer that takes the TCP connection but never finishes TLS or never speaks
     * HTTP/2 would otherwise hold every request to it until each timed out.
     */
    void openWithin(java.time.Duration bound) {
        loop.schedule(() -> {
            if (state == PeerConnectionState.CONNECTING) {
                HttpTimeoutException late = new java.net.http.HttpConnectTimeoutException(
                        "no HTTP/2 connection to " + origin + " within " + bound);
                shutDown(late);
            }
        }, bound);
    }

    /** Closes now: every exchange fails with {@code cause}, the socket (if any) is aborted. Idempotent. */
    void shutDown(IOException cause) {
        if (state == PeerConnectionState.CLOSED) {
            return;
        }
        move(PeerConnectionState.Event.CLOSE);
        owner.retired(this);
        if (liveness != null) {
            liveness.cancel();
        }
        failAll(cause);
        if (connection != null) {
            connection.abort(cause);
        }
    }

    private void start(PeerExchange exchange) {
        PeerRequest request = exchange.request;
        byte[] body = request.body();
        List<HeaderField> fields = new ArrayList<>(5 + request.fields().size());
        fields.add(new HeaderField(":method", request.method()));
        fields.add(origin.schemeField());
        fields.add(origin.authorityField());
        fields.add(new HeaderField(":path", request.target()));
        request.fields().forEach((name, value) -> fields.add(new HeaderField(lowerCase(name), value)));
        if (body.length > 0) {
            fields.add(new HeaderField("content-length", Integer.toString(body.length)));
        }
        int id;
        try {
            id = protocol.openStream(fields, body.length == 0);
        } catch (IllegalArgumentException e) { // a field HTTP/2 cannot carry: the request is at fault
            exchange.fail(new IOException("cannot send " + request + ": " + e.getMessage(), e));
            return;
        }
        exchange.attempts++;
        exchange.streamId = id;
        streams.put(id, exchange);
        streamsOpen = streams.size();
        if (body.length > 0) {
            exchange.unsent = ByteBuffer.wrap(body);
            sendBody(exchange);
        }
    }

    /** Sends what the windows allow of the exchange's body; the rest waits for a WINDOW_UPDATE. */
    private void sendBody(PeerExchange exchange) {
        ByteBuffer unsent = exchange.unsent;
        protocol.sendData(exchange.streamId, unsent, true);
        if (unsent.hasRemaining()) {
            if (!blocked.contains(exchange)) {
                blocked.add(exchange);
            }
        } else {
            exchange.unsent = null;
            blocked.remove(exchange);
        }
    }

    private String lowerCase(String name) {
        String lower = lowerCaseNames.get(name);
        if (lower == null) {
            lower = name.toLowerCase(java.util.Locale.ROOT);
            if (lowerCaseNames.size() < 64) { // the node's own few field names; never grows with traffic
                lowerCaseNames.put(name, lower);
            }
        }
        return lower;
    }

    /** Starts waiting exchanges while the peer's stream limit allows. */
    private void startWaiting() {
        while (state == PeerConnectionState.OPEN && !waiting.isEmpty() && protocol.canOpenStream()) {
            PeerExchange next = waiting.poll();
            if (!next.isDone()) {
                start(next);
            }
        }
    }

    private void timedOut(PeerExchange exchange) {
        exchange.timer = null;
        if (exchange.isDone()) {
            return;
        }
        if (exchange.streamId != 0 && streams.get(exchange.streamId) == exchange) {
            forget(exchange);
            cancelStream(exchange.streamId);
            scheduleFlush();
        } else {
            waiting.remove(exchange);
        }
        exchange.fail(new HttpTimeoutException("no answer from " + origin + " within " + exchange.request.timeout()
                + " to " + exchange.request.method() + " " + exchange.request.path()));
    }

    /**
     * Resets a stream we give up on, unless the engine has closed it already (its last frame
     * arrived in the same read, a peer's END_STREAM on an answer that was too large): a reset of
     * a closed stream is refused, and would fail the whole connection.
     */
    private void cancelStream(int streamId) {
        io.ringkv.http.h2.StreamState stream = protocol.streamState(streamId);
        if (stream != io.ringkv.http.h2.StreamState.CLOSED && stream != io.ringkv.http.h2.StreamState.IDLE) {
            protocol.resetStream(streamId, ErrorCode.CANCEL);
        }
    }

    private void forget(PeerExchange exchange) {
        streams.remove(exchange.streamId);
        streamsOpen = streams.size();
        blocked.remove(exchange);
    }

    // ---- ConnectionHandler (the loop) ----

    @Override
    public void onOpen(Connection opened) {
        this.connection = opened;
        owner.opened(this);
        protocol.start(); // RFC 9113 §3.4: the preface, our SETTINGS, then the larger connection window
        lastReadNanos = loop.nanoTime();
        writeOutput();
        opened.flush();
        liveness = loop.schedule(livenessTask, pingIntervalNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    @Override
    public void onRead(Connection from, ByteBuffer input) {
        long now = loop.nanoTime();
        lastReadNanos = now;
        pingSentNanos = 0; // any read proves the peer alive
        List<Http2Event> events = readEvents;
        readEvents = null; // a read nested in this one's callbacks gets a list of its own
        if (events == null) {
            events = new ArrayList<>();
        }
        protocol.receive(input, now, events);
        boolean outer = reading;
        reading = true;
        try {
            for (int i = 0; i < events.size(); i++) { // indexed: no iterator per read
                handle(events.get(i), from);
            }
        } finally {
            reading = outer;
        }
        events.clear();
        readEvents = events;
        startWaiting();
        writeOutput();
        from.flush();
        closeIfDrained();
    }

    private void handle(Http2Event event, Connection from) {
        switch (event) {
            case Http2Event.HeadersReceived headers -> onHeaders(headers);
            case Http2Event.DataReceived data -> onData(data, from);
            case Http2Event.StreamReset reset -> onReset(reset);
            case Http2Event.WindowOpened opened -> resumeBlocked();
            case Http2Event.SettingsReceived settings -> move(PeerConnectionState.Event.SETTINGS);
            case Http2Event.PingAcknowledged ack -> pingSentNanos = 0;
            case Http2Event.GoAwayReceived goAway -> onGoAway(goAway);
            case Http2Event.ConnectionFailed failed -> {
                // The engine queued a GOAWAY: written below, then the socket closes.
                retire();
                failAll(new IOException("HTTP/2 connection to " + origin + " failed: " + failed.code() + " "
                        + failed.reason()));
                writeOutput();
                from.closeAfterFlush();
            }
            case Http2Event.PushPromised promised -> {
                // Push is off in our SETTINGS, so the engine refuses a PUSH_PROMISE before this.
            }
        }
    }

    private void onHeaders(Http2Event.HeadersReceived headers) {
        PeerExchange exchange = streams.get(headers.streamId());
        if (exchange == null) {
            return;
        }
        if (!headers.trailers()) {
            int status = status(headers.fields());
            if (status < 200) { // an interim answer (1xx): the final one follows
                return;
            }
            Headers fields = new Headers(headers.fields().size());
            long contentLength = -1;
            for (int i = 0; i < headers.fields().size(); i++) {
                HeaderField field = headers.fields().get(i);
                if (!field.name().startsWith(":")) {
                    fields.add(field.name(), field.value());
                    if (field.name().equals("content-length")) {
                        contentLength = parseLength(field.value());
                    }
                }
            }
            if (!exchange.isStreamed() && contentLength > exchange.bodyBytesMax()) {
                tooLarge(exchange);
                return;
            }
            PeerBodyStream body = exchange.isStreamed() ? new PeerBodyStream(exchange.request.timeout(), credit(exchange))
                    : null;
            exchange.head(status, fields, contentLength, body);
        }
        if (headers.endStream()) {
            forget(exchange);
            exchange.end();
        }
    }

    private void onData(Http2Event.DataReceived data, Connection from) {
        int streamId = data.streamId();
        int bytes = data.data().remaining();
        PeerExchange exchange = streams.get(streamId);
        if (exchange == null || !exchange.headArrived()) {
            protocol.consumed(streamId, bytes); // nobody reads it: its credit goes back at once
            return;
        }
        PeerBodyStream body = exchange.bodyStream();
        if (body != null) {
            if (bytes > 0) {
                body.offer(from.retain(data.data())); // credited as the reader takes it
            }
        } else {
            if (!exchange.append(data.data())) {
                protocol.consumed(streamId, bytes);
                tooLarge(exchange);
                return;
            }
            protocol.consumed(streamId, bytes);
        }
        if (data.endStream()) {
            forget(exchange);
            exchange.end();
        }
    }

    private void tooLarge(PeerExchange exchange) {
        forget(exchange);
        cancelStream(exchange.streamId);
        exchange.fail(new IOException(origin + " answered " + exchange.request + " with more than "
                + exchange.bodyBytesMax() + " bytes"));
    }

    private void onReset(Http2Event.StreamReset reset) {
        PeerExchange exchange = streams.get(reset.streamId());
        if (exchange == null) {
            return;
        }
        forget(exchange);
        if (reset.byPeer() && reset.code() == ErrorCode.REFUSED_STREAM && !exchange.headArrived()) {
            retry(exchange);
        } else {
            exchange.fail(new IOException(origin + " reset the stream of " + exchange.request + ": " + reset.code()
                    + (reset.reason() == null ? "" : " (" + reset.reason() + ")")));
        }
    }

    /** RFC 9113 §6.8: streams above the peer's last one were not processed and may go again elsewhere. */
    private void onGoAway(Http2Event.GoAwayReceived goAway) {
        retire();
        List<PeerExchange> unprocessed = new ArrayList<>();
        streams.forEachValue(exchange -> {
            if (exchange.streamId > goAway.lastStreamId()) {
                unprocessed.add(exchange);
            }
        });
        for (PeerExchange exchange : unprocessed) {
            forget(exchange);
            retry(exchange);
        }
        while (!waiting.isEmpty()) {
            retry(waiting.poll());
        }
    }

    private void retry(PeerExchange exchange) {
        if (exchange.isDone()) {
            return;
        }
        exchange.streamId = 0;
        exchange.unsent = null;
        if (exchange.attempts >= PeerExchange.ATTEMPTS_MAX) {
            exchange.fail(new IOException(origin + " refused " + exchange.request + " " + exchange.attempts + " times"));
            return;
        }
        owner.retry(exchange);
    }

    private void resumeBlocked() {
        for (PeerExchange exchange : List.copyOf(blocked)) {
            if (streams.get(exchange.streamId) == exchange && exchange.unsent != null) {
                sendBody(exchange);
            } else {
                blocked.remove(exchange);
            }
        }
    }

    /** How a streamed body's reader, on its own thread, gives credit back and abandons the stream. */
    private PeerBodyStream.Credit credit(PeerExchange exchange) {
        int streamId = exchange.streamId;
        return new PeerBodyStream.Credit() {
            @Override
            public void consumed(int bytes) {
                onLoop(() -> {
                    protocol.consumed(streamId, bytes);
                    scheduleFlush();
                });
            }

            @Override
            public void closed(java.util.concurrent.atomic.AtomicLong unread) {
                onLoop(() -> {
                    if (streams.get(streamId) == exchange) {
                        forget(exchange);
                        cancelStream(streamId);
                        exchange.fail(new IOException("the reader closed the answer before its end"));
                    }
                    long left = unread.getAndSet(0);
                    if (left > 0 && state != PeerConnectionState.CLOSED) {
                        protocol.consumed(streamId, (int) Math.min(left, Integer.MAX_VALUE));
                    }
                    scheduleFlush();
                    closeIfDrained();
                });
            }
        };
    }

    private void onLoop(Runnable task) {
        try {
            loop.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The loop stopped: the connection is closed with it, and its credit no longer matters.
        }
    }

    @Override
    public void onInputClosed(Connection from) {
        from.closeAfterFlush();
    }

    @Override
    public void onClosed(Connection closed, Throwable cause) {
        if (state == PeerConnectionState.CLOSED) {
            return; // shut down by us: everything failed already
        }
        move(PeerConnectionState.Event.CLOSE);
        protocol.transportClosed();
        owner.retired(this);
        if (liveness != null) {
            liveness.cancel();
        }
        failAll(cause instanceof IOException io ? new IOException("connection to " + origin + " lost: " + io.getMessage(), io)
                : new IOException("connection to " + origin + " closed" + (cause == null ? "" : ": " + cause), cause));
    }

    // ---- writing ----

    private void writeOutput() {
        List<ByteBuffer> frames = protocol.drainOutput();
        if (!frames.isEmpty() && connection != null) {
            connection.enqueue(frames.toArray(ByteBuffer[]::new));
        }
    }

    /**
     * Writes once after this loop iteration's I/O, whatever else the iteration frames meanwhile;
     * nothing to schedule while this connection's own read dispatches, which writes at its end.
     */
    private void scheduleFlush() {
        if (!flushScheduled && !reading) {
            flushScheduled = true;
            onLoop(flushTask);
        }
    }

    private void flushNow() {
        flushScheduled = false;
        writeOutput();
        if (connection != null) {
            connection.flush();
        }
    }

    // ---- lifecycle ----

    private void checkLiveness() {
        liveness = null;
        if (state == PeerConnectionState.CLOSED) {
            return;
        }
        long now = loop.nanoTime();
        if (pingSentNanos != 0 && now - pingSentNanos >= pingTimeoutNanos) {
            log.info("no answer from {} to a PING within {} ms; closing the connection", origin, pingTimeoutNanos / 1_000_000);
            connection.abort(new HttpTimeoutException("no answer to a PING from " + origin));
            return;
        }
        if (state == PeerConnectionState.OPEN && streams.isEmpty() && waiting.isEmpty()
                && now - lastUsedNanos >= idleCloseNanos) {
            retire();
            protocol.goAway(ErrorCode.NO_ERROR, "idle");
            writeOutput();
            connection.closeAfterFlush();
            return;
        }
        if (pingSentNanos == 0 && now - lastReadNanos >= pingIntervalNanos) {
            pingSentNanos = now;
            protocol.ping(now);
            flushNow();
        }
        liveness = loop.schedule(livenessTask, pingIntervalNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Takes no new requests from now on; the transport opens another connection for the next. */
    private void retire() {
        move(PeerConnectionState.Event.RETIRE);
        owner.retired(this);
    }

    private void closeIfDrained() {
        if (state == PeerConnectionState.DRAINING && streams.isEmpty() && connection != null) {
            connection.closeAfterFlush();
        }
    }

    private void failAll(IOException cause) {
        List<PeerExchange> open = new ArrayList<>(streams.size() + waiting.size());
        streams.forEachValue(open::add);
        streams.clear();
        streamsOpen = 0;
        blocked.clear();
        open.addAll(waiting);
        waiting.clear();
        for (PeerExchange exchange : open) {
            exchange.fail(cause);
        }
    }

    private static int status(List<HeaderField> fields) {
        for (int i = 0; i < fields.size(); i++) {
            HeaderField field = fields.get(i);
            if (field.name().equals(":status")) {
                return Integer.parseInt(field.value()); // http-core checked it is three digits
            }
        }
        return -1;
    }

    private static long parseLength(String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1; // http-core refuses a malformed content-length before this
        }
    }

    @Override
    public String toString() {
        return "PeerConnection[" + origin + ", " + state + ", " + streamsOpen + " streams]";
    }
}
