package io.ringkv.http.server.internal;

import io.ringkv.http.Headers;
import io.ringkv.http.h2.ConnectionState;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Connection;
import io.ringkv.http.h2.Http2Event;
import io.ringkv.http.h2.Http2Settings;
import io.ringkv.http.h2.Role;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.h2.StreamIdMap;
import io.ringkv.http.h2.StreamState;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.server.ChunkSource;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import io.ringkv.net.ScheduledTask;
import java.security.cert.X509Certificate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection on the server (h2c by prior knowledge, or by {@code Upgrade: h2c} from an
 * {@link Http1Session}), driven by http-core's
 * {@link Http2Connection} in the server role. Each request stream is admitted against the
 * in-flight budget (over it: 503 on that stream, nothing queued), runs on the handler executor,
 * and its response is encoded and queued on whichever thread completes it.
 *
 * <p>The defences HTTP/1.1 has, for HTTP/2:
 * <ul>
 *   <li>Back-pressure: after a read that leaves the socket queue past its high-water mark, reading
 *       stops until {@link #onWritable} (a peer that sends frames we must answer and reads
 *       nothing cannot make us queue answers without bound); response DATA is queued a slice at
 *       a time and only while the queue is under the mark. A connection whose queue still passes
 *       {@link #OUTBOUND_CAP_FACTOR} times the mark is aborted.</li>
 *   <li>Timeouts, on one timer per connection: the client's preface and SETTINGS, and any field
 *       block awaiting CONTINUATION, within the header-read timeout (else GOAWAY
 *       ENHANCE_YOUR_CALM and close); a connection with no open stream for the idle timeout gets
 *       GOAWAY(NO_ERROR) and closes; a request body must make progress within the idle timeout
 *       and average {@link ServerConfig#bodyRateMin()} over each {@link ServerConfig#BODY_RATE_WINDOW}
 *       (else 408 on its stream, then RST_STREAM(NO_ERROR); not judged while we have stopped
 *       reading, since no body can arrive then); a response the peer lets make no
 *       progress for an idle timeout, or a queue it stops draining while reads are stopped,
 *       closes the connection.</li>
 *   <li>A stream's in-flight permit is held while its handler (or a pull of its body) runs, even
 *       if the stream was reset meanwhile, by the client or by us because of its frames: resets
 *       cannot buy more concurrent handler work than the budget. http-core counts both kinds of
 *       reset against one rapid-reset limit.</li>
 *   <li>A request body past the server's limit, or past the one the handler's head check gave
 *       its request ({@link io.ringkv.http.server.HeadAdmission#bodyBytesMax}), gets 413 and then
 *       RST_STREAM(NO_ERROR); its reserved body memory goes back at once. That reset, like the
 *       one after an answer at the head or a 408, counts against the rapid-reset limit.</li>
 * </ul>
 *
 * <p>Threading: the socket callbacks and the timer run on the loop. Every call into the protocol
 * state ({@link #h2}) and every change to {@link #streams} happens inside
 * {@code synchronized (lock)}, one short section per step, and the frames that step produced are
 * enqueued (lock-free, no socket write) in the same section, so stream ids and HPACK blocks leave
 * in order; the socket is flushed after leaving it, never while holding the lock. Streamed bodies
 * are pulled on the handler executor. Fields marked loop-confined are touched by the loop only.
 * The connection's lifecycle (awaiting the preface's SETTINGS, open, draining after a GOAWAY
 * either way, closed) is {@link Http2Connection#state()}, read under the lock like the rest of
 * {@link #h2}; the session keeps no copy, and tells it when the socket is given up
 * ({@link Http2Connection#transportClosed()}).
 */
final class Http2Session implements ConnectionHandler, ServerSession {
    private static final Logger log = LoggerFactory.getLogger(Http2Session.class);

    /**
     * The most of a response body handed to the protocol in one step: DATA goes out a slice at a
     * time while the socket queue is under its high-water mark, so a body the peer's windows
     * admit whole is not queued whole for a peer that does not read.
     */
    static final int DATA_SLICE_BYTES = 64 * 1024;

    /**
     * The hard cap on a connection's unsent bytes, as a multiple of the high-water mark. Reading
     * stops at the mark and DATA waits for it, so only what one read answers (control frames,
     * 503s, response headers) can pass it; a queue past the cap means that went wrong, and the
     * connection is aborted rather than allowed to take the heap.
     */
    static final int OUTBOUND_CAP_FACTOR = 4;

    private static final long UNSET = Long.MIN_VALUE;

    private final ServerContext context;
    /** The client's verified certificates, read once at the end of the TLS handshake; empty on cleartext. */
    private final List<X509Certificate> peerCertificates;
    private final Object lock = new Object();
    private final Http2Connection h2;
    private final long bodyBytesMax;
    private final long outboundBytesMax;
    private final long idleNanos;
    private final long headerNanos;
    private final long rateWindowNanos;
    /** Bytes a body must bring within each rate window; 0 when the rate is not checked. */
    private final long bytesPerRateWindowMin;
    /** Set once at open, before any other thread can see this session. */
    private Connection connection;
    /** The events list of reads, reused from one to the next ({@link #takeReadEvents}); loop-confined. */
    private List<Http2Event> readEvents;
    // Guarded by lock.
    private final StreamIdMap<ServerStream> streams = new StreamIdMap<>();
    /** DATA octets queued so far; a stall check compares it with its previous look. */
    private long dataBytesSent;
    /** When {@link #streams} last became empty (or the connection opened): the idle timeout runs from here. */
    private long quietSinceNanos;
    // Loop-confined.
    private ScheduledTask timer;
    private long timerDeadlineNanos;
    /** The client's preface and SETTINGS are due by then. */
    private long prefaceDeadlineNanos;
    /** Since when a field block has waited for CONTINUATION, or {@link #UNSET}. */
    private long fieldBlockSinceNanos = UNSET;
    private long nextStallCheckNanos;
    private long dataBytesSentAtLastCheck = -1;
    private long queuedAtLastCheck = -1;
    /** The loop's clock at the start of the current read. */
    private long readNanos;
    private boolean readsPaused;
    /** Loop-confined: the connection failed because of a stream we reset (see {@link #resetUnreadBody}). */
    private boolean failed;

    Http2Session(ServerContext context, List<X509Certificate> peerCertificates) {
        this.context = context;
        this.peerCertificates = peerCertificates;
        this.bodyBytesMax = context.config().h1Limits().bodyBytesMax();
        Http2Settings defaults = Http2Settings.localDefaults();
        // SETTINGS_MAX_CONCURRENT_STREAMS follows the in-flight budget: a peer that respects it
        // never meets a 503 from one connection alone.
        long concurrent = Math.min(defaults.maxConcurrentStreams(), context.budget().max());
        Http2Settings local = new Http2Settings(defaults.headerTableSize(), false, concurrent,
                defaults.initialWindowSize(), defaults.maxFrameSize(), defaults.maxHeaderListBytes());
        this.h2 = new Http2Connection(Role.SERVER, Http2Config.defaults().withLocal(local));
        ServerConfig config = context.config();
        this.outboundBytesMax = OUTBOUND_CAP_FACTOR * config.channelOptions().writeHighWaterBytes();
        this.idleNanos = config.idleTimeout().toNanos();
        this.headerNanos = config.headerReadTimeout().toNanos();
        this.rateWindowNanos = ServerConfig.BODY_RATE_WINDOW.toNanos();
        this.bytesPerRateWindowMin = (long) config.bodyRateMin() * ServerConfig.BODY_RATE_WINDOW.toSeconds();
    }

    @Override
    public EventLoop loop() {
        return connection.loop();
    }

    @Override
    public void onOpen(Connection opened) {
        connection = opened;
        context.opened(this);
        long now = opened.loop().nanoTime();
        synchronized (lock) {
            quietSinceNanos = now;
            h2.start();
            enqueueLocked();
        }
        flush();
        startTimer(now);
        if (context.draining()) {
            beginDrain(); // shutdown began while this connection was choosing its protocol
        }
    }

    /**
     * Loop thread: the connection was HTTP/1.1 until now and its request {@code fields} (no body)
     * asked for {@code Upgrade: h2c}; the 101 is queued. Our SETTINGS follow it, the client's
     * {@code HTTP2-Settings} apply at once, and the request is answered on stream 1 (RFC 7540
     * §3.2). The client's preface and SETTINGS are still to come.
     */
    void onUpgrade(Connection opened, List<SettingsFrame.Setting> clientSettings, List<HeaderField> fields) {
        connection = opened;
        context.opened(this);
        long now = opened.loop().nanoTime();
        ServerStream stream = new ServerStream(Http2Connection.UPGRADE_STREAM_ID, fields);
        synchronized (lock) {
            quietSinceNanos = now;
            h2.start();
            h2.applyUpgradeSettings(clientSettings);
            h2.openUpgradeStream(stream.head);
            streams.put(stream.id, stream);
            enqueueLocked();
        }
        flush();
        startTimer(now);
        dispatch(stream);
        if (context.draining()) {
            beginDrain();
        }
    }

    /**
     * Loop thread, at open: the client's preface and SETTINGS are due within the header-read
     * timeout, and the timer runs at least once per idle timeout from now on (see {@link #onTimer}).
     */
    private void startTimer(long now) {
        prefaceDeadlineNanos = now + headerNanos;
        nextStallCheckNanos = now + idleNanos;
        armBy(earlier(prefaceDeadlineNanos, nextStallCheckNanos));
    }

    @Override
    public void onRead(Connection from, ByteBuffer input) {
        readNanos = connection.loop().nanoTime();
        List<Http2Event> events = takeReadEvents();
        boolean inFieldBlock;
        synchronized (lock) {
            h2.receive(input, System.nanoTime(), events);
            inFieldBlock = h2.awaitingContinuation();
            enqueueLocked();
        }
        flush();
        for (int i = 0; i < events.size(); i++) { // an index, not an iterator: this runs per read
            if (failed) {
                break; // the connection failed on our side while this read's events were handled
            }
            onEvent(events.get(i));
        }
        events.clear();
        readEvents = events;
        if (!inFieldBlock) {
            fieldBlockSinceNanos = UNSET;
        } else if (fieldBlockSinceNanos == UNSET) {
            fieldBlockSinceNanos = readNanos; // CONTINUATION frames do not move it: the whole block is due
            armBy(readNanos + headerNanos);
        }
        // Whatever this read made us queue is queued; the next read waits until the peer has
        // taken enough of it (onWritable), so what we answer cannot outgrow what it reads.
        if (!readsPaused && connection.isOpen() && !connection.isWritable()) {
            readsPaused = true;
            connection.suspendReads();
        }
        closeIfDone();
    }

    /**
     * The list this read's events go into: the one the last read used, unless a read is being
     * handled further up this thread's stack (it is taken while in use, so a nested read gets a
     * list of its own).
     */
    private List<Http2Event> takeReadEvents() {
        List<Http2Event> events = readEvents;
        readEvents = null;
        return events != null ? events : new java.util.ArrayList<>(4);
    }

    private void onEvent(Http2Event event) {
        switch (event) {
            case Http2Event.SettingsReceived s -> resumeAll(); // the connection's state moved on in receive()
            case Http2Event.HeadersReceived h -> onHeaders(h);
            case Http2Event.DataReceived d -> onData(d);
            case Http2Event.StreamReset r -> onReset(r.streamId());
            case Http2Event.WindowOpened w -> resumeAll();
            case Http2Event.GoAwayReceived g -> { } // the connection is DRAINING now: new streams are refused
            case Http2Event.ConnectionFailed f -> {
                log.debug("{} connection error {} {}", connection, f.code(), f.reason());
                failAll();
                connection.closeAfterFlush();
            }
            case Http2Event.PushPromised p -> { }
            case Http2Event.PingAcknowledged p -> { }
        }
    }

    private void onHeaders(Http2Event.HeadersReceived h) {
        ServerStream stream;
        boolean opened = false;
        synchronized (lock) {
            if (h2.state() == ConnectionState.CLOSED) {
                return;
            }
            stream = streams.get(h.streamId());
            if (stream == null) {
                if (h.trailers()) {
                    return;
                }
                stream = new ServerStream(h.streamId(), h.fields());
                streams.put(stream.id, stream);
                opened = true;
            }
        }
        if (opened && answeredAtHead(stream, h.endStream())) {
            return;
        }
        if (h.endStream()) {
            stream.awaitingBody = false;
            if (!stream.rejected) {
                dispatch(stream);
            }
        } else if (opened) {
            // The body is to come: it must make progress, and at the minimum rate.
            stream.awaitingBody = true;
            stream.lastBodyNanos = readNanos;
            stream.rateWindowStartNanos = readNanos;
            armBy(readNanos + (bytesPerRateWindowMin > 0 ? Math.min(idleNanos, rateWindowNanos) : idleNanos));
        }
    }

    /**
     * Loop thread: the handler's look at a new stream's head ({@link HeadGate}). When it answers,
     * no permit is taken and no body byte is kept: the answer goes out, then a body still to come
     * is stopped with RST_STREAM(NO_ERROR) (RFC 9113 §8.1), and DATA already on its way is only
     * counted for flow control.
     *
     * @return whether the stream was answered
     */
    private boolean answeredAtHead(ServerStream stream, boolean endStream) {
        HeadGate.Decision decision = stream.admitAtHead(context.headGate(), endStream, connection, peerCertificates);
        Response early = decision.early();
        if (early == null) {
            stream.admissionNote = decision.note();
            stream.bodyBytesMax = decision.bodyBytesMax();
            stream.priority = decision.priority();
            stream.onLoop = decision.onLoop();
            return false;
        }
        stream.rejected = true;
        stream.awaitingBody = false;
        respond(stream, early);
        if (!endStream) {
            resetUnreadBody(stream);
        }
        return true;
    }

    private void onData(Http2Event.DataReceived d) {
        ServerStream stream;
        int length = d.data().remaining();
        synchronized (lock) {
            stream = streams.get(d.streamId());
        }
        if (stream != null && stream.awaitingBody) {
            stream.bodyBytes += length;
            stream.lastBodyNanos = readNanos;
            stream.awaitingBody = !d.endStream();
        }
        if (stream != null && !stream.rejected) {
            long limit = Math.min(bodyBytesMax, stream.bodyBytesMax);
            if (stream.body.size() + (long) length > limit) {
                // Past the server's limit or the one the handler's head check gave this request
                // (the bound of a body without content-length): the rest is not read.
                stream.rejected = true;
                stream.awaitingBody = false;
                releaseBody(stream);
                respond(stream, Response.text(413, "request body too large: this request takes at most "
                        + limit + " bytes"));
                if (!d.endStream()) {
                    resetUnreadBody(stream);
                }
            } else if (!context.bodyMemory().tryReserve(length)) {
                stream.rejected = true;
                stream.awaitingBody = false;
                releaseBody(stream);
                context.refusedRequest();
                respond(stream, Response.text(503, "request bodies fill this server's memory budget, retry later"));
            } else {
                stream.reservedBytes.addAndGet(length);
                byte[] bytes = new byte[length];
                d.data().get(bytes);
                stream.body.writeBytes(bytes);
            }
        }
        synchronized (lock) {
            // Credit returns in batches of about half a window (Http2Config's credit ratio).
            h2.consumed(d.streamId(), length);
            enqueueLocked();
        }
        flush();
        if (stream != null && d.endStream() && !stream.rejected) {
            dispatch(stream);
        }
    }

    private void dispatch(ServerStream stream) {
        Request request;
        try {
            request = stream.toRequest(connection, peerCertificates);
            releaseBody(stream);
        } catch (IllegalArgumentException e) {
            respond(stream, Response.text(400, e.getMessage()));
            return;
        }
        if (!context.budget().tryAcquire(stream.priority)) {
            context.refusedRequest();
            respond(stream, Response.text(503, "overloaded, retry later"));
            return;
        }
        stream.permit.set(true);
        synchronized (lock) {
            stream.handlerRunning = true;
        }
        try {
            long dispatched = System.nanoTime();
            if (stream.onLoop) {
                // The handler said it never blocks on such a request (HeadAdmission.onLoop).
                context.invoker().invoke(request, response -> answered(stream, response), dispatched);
                return;
            }
            context.executor().execute(() -> context.invoker().invoke(request, response -> answered(stream, response), dispatched));
        } catch (RejectedExecutionException e) {
            synchronized (lock) {
                stream.handlerRunning = false;
            }
            context.refusedRequest();
            respond(stream, Response.text(503, "overloaded, retry later"));
        }
    }

    /**
     * The handler's answer, on whichever thread completed it. From here the handler holds nothing:
     * a stream that was reset meanwhile is finished by {@link #respond}, permit and all.
     */
    private void answered(ServerStream stream, Response response) {
        synchronized (lock) {
            stream.handlerRunning = false;
        }
        respond(stream, response);
    }

    /** Any thread: encodes the response and queues its headers and as much body as the windows allow. */
    private void respond(ServerStream stream, Response response) {
        List<HeaderField> fields = new ArrayList<>();
        fields.add(new HeaderField(":status", Integer.toString(response.status())));
        Headers headers = response.headers();
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i).toLowerCase(Locale.ROOT);
            if (!isConnectionSpecific(name) && !name.equals("content-length")) {
                fields.add(new HeaderField(name, headers.value(i)));
            }
        }
        int status = response.status();
        boolean noContent = stream.head || status == 204 || status == 304;
        ByteBuffer fixed = null;
        ChunkSource source = null;
        switch (response.body()) {
            case ResponseBody.Empty e -> {
                if (status != 204 && status != 304) {
                    fields.add(new HeaderField("content-length", "0"));
                }
            }
            case ResponseBody.Fixed f -> {
                if (status != 204 && status != 304) {
                    fields.add(new HeaderField("content-length", Integer.toString(f.bytes().length)));
                }
                fixed = noContent || f.bytes().length == 0 ? null : ByteBuffer.wrap(f.bytes());
            }
            case ResponseBody.Streamed s -> {
                if (noContent) {
                    ResponseEncoder.closeQuietly(s.source());
                } else {
                    source = s.source();
                }
            }
        }
        boolean closeNow;
        synchronized (lock) {
            if (!streams.containsKey(stream.id) || h2.state() == ConnectionState.CLOSED) {
                finish(stream, source);
                return;
            }
            if (!h2.streamState(stream.id).canSend()) {
                // http-core reset the stream in the read that also brought its request (a frame
                // behind the HEADERS was a stream error), and the StreamReset event is still to
                // come: the answer has nowhere to go, and sending it would throw on this thread.
                removeLocked(stream.id);
                finish(stream, source);
                return;
            }
            boolean endStream = fixed == null && source == null;
            h2.sendHeaders(stream.id, fields, endStream);
            stream.pending = fixed;
            stream.source = source;
            if (endStream) {
                removeLocked(stream.id);
                finish(stream, null);
            } else if (fixed != null) {
                sendPendingLocked(stream);
            }
            enqueueLocked();
            // Only a connection going away closes when its last stream ends; asking the loop on
            // every answer would cost a task and a selector wake-up per response.
            closeNow = h2.state() == ConnectionState.DRAINING && streams.isEmpty();
        }
        flush();
        if (source != null) {
            schedulePull(stream);
        }
        if (closeNow) {
            onLoop(this::closeIfDone);
        }
    }

    private static boolean isConnectionSpecific(String name) {
        return name.equals("connection") || name.equals("transfer-encoding") || name.equals("keep-alive")
                || name.equals("upgrade") || name.equals("proxy-connection");
    }

    /**
     * Under lock: queues what the windows allow of the stream's pending bytes, a slice at a time
     * while the socket queue is under its high-water mark (the rest waits for WindowOpened or
     * onWritable); ends the stream when all is sent.
     */
    private void sendPendingLocked(ServerStream stream) {
        if (!h2.streamState(stream.id).canSend()) {
            return; // reset by http-core in the read being handled; its StreamReset event finishes it
        }
        ByteBuffer data = stream.pending;
        boolean last = stream.source == null || stream.sourceDone;
        if (data != null && !data.hasRemaining()) {
            stream.pending = null;
            data = null;
        }
        if (data == null) {
            if (last && stream.source != null) {
                h2.sendData(stream.id, ByteBuffer.allocate(0), true);
                removeLocked(stream.id);
                finish(stream, null);
            }
            return;
        }
        while (data.hasRemaining() && connection.isWritable()) {
            int offered = Math.min(data.remaining(), DATA_SLICE_BYTES);
            int sent = h2.sendData(stream.id, data.slice(data.position(), offered), last && offered == data.remaining());
            data.position(data.position() + sent);
            dataBytesSent += sent;
            // Into the connection's queue at once (still in order, under the lock), so that the
            // next isWritable() counts this slice.
            enqueueLocked();
            if (sent < offered) {
                break; // a window is shut
            }
        }
        if (!data.hasRemaining()) {
            stream.pending = null;
            if (last) {
                removeLocked(stream.id);
                finish(stream, null);
            }
        }
    }

    /** Pulls the next chunk on the handler executor once the previous one is fully queued. */
    private void schedulePull(ServerStream stream) {
        synchronized (lock) {
            if (stream.pulling || stream.sourceDone || stream.pending != null || !streams.containsKey(stream.id)) {
                return;
            }
            if (h2.sendableBytes(stream.id) == 0 || !connection.isWritable()) {
                return; // WindowOpened or onWritable resumes it
            }
            stream.pulling = true;
        }
        try {
            context.executor().execute(() -> pull(stream));
        } catch (RejectedExecutionException e) {
            abortStream(stream, "executor rejected the body pull");
        }
    }

    private void pull(ServerStream stream) {
        ByteBuffer chunk;
        try {
            do {
                chunk = stream.source.next();
            } while (chunk != null && !chunk.hasRemaining());
        } catch (IOException | RuntimeException e) {
            log.warn("response body for stream {} on {} failed", stream.id, connection, e);
            abortStream(stream, "body source failed");
            return;
        }
        boolean more;
        boolean closeNow;
        synchronized (lock) {
            stream.pulling = false;
            if (!streams.containsKey(stream.id)) {
                // Reset (or the connection closed) while this pull ran: the stream was left to
                // finish here, where its source is no longer in use.
                finish(stream, stream.source);
                return;
            }
            if (chunk == null) {
                stream.sourceDone = true;
            } else {
                stream.pending = chunk;
            }
            sendPendingLocked(stream);
            more = streams.containsKey(stream.id) && stream.pending == null;
            enqueueLocked();
            closeNow = h2.state() == ConnectionState.DRAINING && streams.isEmpty();
        }
        flush();
        if (more) {
            schedulePull(stream);
        }
        if (closeNow) {
            onLoop(this::closeIfDone);
        }
    }

    private void abortStream(ServerStream stream, String why) {
        synchronized (lock) {
            stream.pulling = false;
            if (removeLocked(stream.id) != null && h2.state() != ConnectionState.CLOSED) {
                h2.resetStream(stream.id, ErrorCode.INTERNAL_ERROR);
            }
            enqueueLocked();
        }
        log.debug("{} stream {} reset: {}", connection, stream.id, why);
        flush();
        finish(stream, stream.source);
    }

    /** A window opened, the socket drained, or SETTINGS changed the windows: move every waiting body on. */
    private void resumeAll() {
        List<ServerStream> waiting = new ArrayList<>();
        synchronized (lock) {
            for (ServerStream stream : streams.values()) {
                if (stream.pending != null) {
                    sendPendingLocked(stream);
                }
                if (stream.source != null && stream.pending == null && streams.containsKey(stream.id)) {
                    waiting.add(stream);
                }
            }
            enqueueLocked();
        }
        flush();
        for (ServerStream stream : waiting) {
            schedulePull(stream);
        }
    }

    /**
     * The stream was reset, by the client or by http-core because of a frame the client sent.
     * Its body memory goes back now; its permit only once nothing runs for it any more: while
     * the handler (or a pull of the response body) still works, the reset frees no capacity, so
     * it must not free a permit either, or resets would buy unbounded handler work
     * ("MadeYouReset"). {@link #answered} or {@link #pull} then finishes the stream.
     */
    private void onReset(int streamId) {
        ServerStream stream;
        boolean busy;
        ChunkSource source;
        synchronized (lock) {
            stream = removeLocked(streamId);
            if (stream == null) {
                return;
            }
            busy = stream.handlerRunning || stream.pulling;
            source = stream.source;
        }
        releaseBody(stream);
        if (!busy) {
            finish(stream, source);
        }
    }

    /**
     * The stream is over: its permit goes back once; {@code source}, when given, is closed once.
     * Any thread; acts once however many threads get here.
     */
    private void finish(ServerStream stream, ChunkSource source) {
        releaseBody(stream);
        if (stream.permit.compareAndSet(true, false)) {
            context.budget().release();
        }
        if (source != null && stream.sourceClosed.compareAndSet(false, true)) {
            if (context.executor().isShutdown()) {
                ResponseEncoder.closeQuietly(source);
            } else {
                try {
                    context.executor().execute(() -> ResponseEncoder.closeQuietly(source));
                } catch (RejectedExecutionException e) {
                    ResponseEncoder.closeQuietly(source);
                }
            }
        }
    }

    /** The body's bytes leave the server's body-memory budget once (handed over, or dropped). Any thread. */
    private void releaseBody(ServerStream stream) {
        long reserved = stream.reservedBytes.getAndSet(0);
        if (reserved > 0) {
            context.bodyMemory().release(reserved);
        }
    }

    /** The connection is over: every stream ends, each permit once its handler or pull is done (see {@link #onReset}). */
    private void failAll() {
        List<ServerStream> idle = new ArrayList<>();
        List<ServerStream> busy = new ArrayList<>();
        synchronized (lock) {
            h2.transportClosed();
            for (ServerStream stream : streams.values()) {
                (stream.handlerRunning || stream.pulling ? busy : idle).add(stream);
            }
            streams.clear();
        }
        for (ServerStream stream : idle) {
            finish(stream, stream.source);
        }
        for (ServerStream stream : busy) {
            releaseBody(stream);
        }
    }

    /** Under lock: removes a stream; the idle timeout runs from when the last one goes. */
    private ServerStream removeLocked(int streamId) {
        ServerStream removed = streams.remove(streamId);
        if (removed != null && streams.isEmpty()) {
            quietSinceNanos = connection.loop().nanoTime();
        }
        return removed;
    }

    /**
     * Flushes, then enforces the cap on unsent bytes: reading stops at the high-water mark and
     * DATA waits for it, so a queue past {@link #OUTBOUND_CAP_FACTOR} times the mark belongs to a
     * peer that reads nothing while answers still pile up; it is cut off (a GOAWAY would only
     * queue behind what it does not read). Any thread, never under the lock.
     */
    private void flush() {
        connection.flush();
        long queued = connection.queuedBytes();
        if (queued > outboundBytesMax && connection.isOpen()) {
            log.debug("{}: {} bytes unsent, over the cap of {}; aborting", connection, queued, outboundBytesMax);
            connection.abort(new IOException("peer left " + queued + " bytes unread"));
        }
    }

    /**
     * Under lock: appends the frames the last protocol step produced to the connection's queue
     * (lock-free, never a socket write), so frames leave in the order the steps took; the caller
     * flushes after leaving the lock.
     */
    private void enqueueLocked() {
        List<ByteBuffer> out = h2.drainOutput();
        if (!out.isEmpty()) {
            connection.enqueue(out.toArray(ByteBuffer[]::new));
        }
    }

    private void onLoop(Runnable task) {
        try {
            connection.loop().execute(task);
        } catch (RejectedExecutionException e) {
            log.debug("loop stopped; {} is closing", connection);
        }
    }

    /** Loop thread: after GOAWAY (ours or the peer's), close once no stream is left. */
    private void closeIfDone() {
        boolean close;
        synchronized (lock) {
            close = h2.state() == ConnectionState.DRAINING && streams.isEmpty();
        }
        if (close && connection.isOpen()) {
            connection.closeAfterFlush();
        }
    }

    @Override
    public void onInputClosed(Connection from) {
        failAll();
        connection.closeAfterFlush();
    }

    /** The peer took enough of our queue: bodies waiting for it move on, and reading resumes if it stopped. */
    @Override
    public void onWritable(Connection from) {
        resumeAll();
        if (readsPaused && connection.isOpen() && connection.isWritable()) {
            readsPaused = false;
            connection.resumeReads();
            // Bodies could not arrive while we did not read: their clocks start again now.
            long now = connection.loop().nanoTime();
            synchronized (lock) {
                for (ServerStream stream : streams.values()) {
                    if (stream.awaitingBody) {
                        stream.lastBodyNanos = now;
                        stream.rateWindowStartNanos = now;
                        stream.rateWindowStartBytes = stream.bodyBytes;
                    }
                }
            }
        }
    }

    @Override
    public void onClosed(Connection from, Throwable cause) {
        if (cause != null && log.isDebugEnabled()) {
            log.debug("{} closed: {}", from, cause.toString());
        }
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
        failAll();
        context.closed(this);
    }

    // ---- timeouts ----

    /** Loop thread: makes sure the timer fires no later than {@code deadline}. */
    private void armBy(long deadline) {
        if (timer != null && timerDeadlineNanos - deadline <= 0) {
            return; // the pending timer fires first and re-evaluates then
        }
        if (timer != null) {
            timer.cancel();
        }
        timerDeadlineNanos = deadline;
        EventLoop loop = connection.loop();
        timer = loop.schedule(this::onTimer, Math.max(0, deadline - loop.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** What the timer found past its deadline. */
    private enum Expired { NONE, PREFACE, FIELD_BLOCK, IDLE, RESPONSE_STALLED, PEER_NOT_READING }

    /**
     * Loop thread. One timer serves every deadline of the connection: it looks at all of them,
     * acts on those that passed, and re-arms for the nearest one left, and at least once per
     * idle timeout (the stall check's period, and so a connection that went quiet on a handler
     * thread is noticed).
     */
    private void onTimer() {
        timer = null;
        if (!connection.isOpen()) {
            return;
        }
        long now = connection.loop().nanoTime();
        long next = now + idleNanos;
        Expired expired = Expired.NONE;
        List<ServerStream> tooSlow = new ArrayList<>();
        synchronized (lock) {
            if (h2.state() == ConnectionState.CLOSED) {
                return;
            }
            if (h2.state() == ConnectionState.AWAITING_SETTINGS) {
                if (now - prefaceDeadlineNanos >= 0) {
                    expired = Expired.PREFACE;
                }
                next = earlier(next, prefaceDeadlineNanos);
            }
            if (fieldBlockSinceNanos != UNSET) {
                long due = fieldBlockSinceNanos + headerNanos;
                if (now - due >= 0) {
                    expired = Expired.FIELD_BLOCK;
                }
                next = earlier(next, due);
            }
            if (h2.state() == ConnectionState.OPEN && streams.isEmpty()) {
                long due = quietSinceNanos + idleNanos;
                if (now - due >= 0 && expired == Expired.NONE) {
                    expired = Expired.IDLE;
                }
                next = earlier(next, due);
            }
            for (ServerStream stream : streams.values()) {
                if (!stream.awaitingBody || readsPaused) {
                    continue; // no body arrives while we do not read: that is not the client's slowness
                }
                if (bodyTooSlow(stream, now)) {
                    tooSlow.add(stream);
                    continue;
                }
                next = earlier(next, stream.lastBodyNanos + idleNanos);
                if (bytesPerRateWindowMin > 0) {
                    next = earlier(next, stream.rateWindowStartNanos + rateWindowNanos);
                }
            }
            if (now - nextStallCheckNanos >= 0) {
                Expired stall = checkStallLocked();
                expired = expired == Expired.NONE ? stall : expired;
                nextStallCheckNanos = now + idleNanos;
            }
            next = earlier(next, nextStallCheckNanos);
        }
        for (ServerStream stream : tooSlow) {
            refuseSlowBody(stream);
        }
        switch (expired) {
            case NONE -> { }
            case PREFACE -> closeWithGoAway(ErrorCode.ENHANCE_YOUR_CALM, "preface_timeout");
            case FIELD_BLOCK -> closeWithGoAway(ErrorCode.ENHANCE_YOUR_CALM, "field_block_timeout");
            case IDLE -> {
                log.debug("{} idle for {}; closing", connection, context.config().idleTimeout());
                drain("idle");
            }
            case RESPONSE_STALLED -> {
                log.debug("{}: peer kept its window shut for {}; closing", connection, context.config().idleTimeout());
                closeWithGoAway(ErrorCode.ENHANCE_YOUR_CALM, "flow_control_stalled");
            }
            case PEER_NOT_READING -> {
                log.debug("{}: reads stopped and the peer read nothing for {}; aborting", connection,
                        context.config().idleTimeout());
                connection.abort(new IOException("peer stopped reading"));
            }
        }
        if (connection.isOpen()) {
            armBy(next);
        }
    }

    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    /**
     * Under lock, once per idle timeout. A response waiting to send (for window, or for the
     * socket queue to drain) while no DATA octet went out for a whole period holds its permit
     * hostage; and a connection whose reads are stopped while its queue did not move for a whole
     * period belongs to a peer that stopped reading: nothing would ever resume it.
     */
    private Expired checkStallLocked() {
        boolean waiting = streams.values().stream().anyMatch(s -> s.pending != null
                || (s.source != null && !s.sourceDone && !s.pulling));
        boolean stalled = waiting && dataBytesSent == dataBytesSentAtLastCheck;
        dataBytesSentAtLastCheck = dataBytesSent;
        long queued = connection.queuedBytes();
        boolean notReading = readsPaused && queued > 0 && queued == queuedAtLastCheck;
        queuedAtLastCheck = queued;
        if (notReading) {
            return Expired.PEER_NOT_READING;
        }
        return stalled ? Expired.RESPONSE_STALLED : Expired.NONE;
    }

    /**
     * Under lock, for a stream whose request body is still due: no byte for an idle timeout, or
     * fewer than the minimum over a rate window, is too slow (as for HTTP/1.1). A window that was
     * fast enough starts the next one.
     */
    private boolean bodyTooSlow(ServerStream stream, long now) {
        if (now - (stream.lastBodyNanos + idleNanos) >= 0) {
            return true;
        }
        if (bytesPerRateWindowMin > 0 && now - (stream.rateWindowStartNanos + rateWindowNanos) >= 0) {
            long received = stream.bodyBytes - stream.rateWindowStartBytes;
            if (received < bytesPerRateWindowMin) {
                return true;
            }
            stream.rateWindowStartNanos = now;
            stream.rateWindowStartBytes = stream.bodyBytes;
        }
        return false;
    }

    /**
     * Loop thread: a request body that stopped or trickles. 408 on its stream, its body memory
     * back, and (once the answer is queued whole) RST_STREAM(NO_ERROR), which asks the client to
     * stop sending the rest (RFC 9113 §8.1); the connection and its other streams go on.
     */
    private void refuseSlowBody(ServerStream stream) {
        if (stream.rejected) {
            return;
        }
        stream.rejected = true;
        stream.awaitingBody = false;
        releaseBody(stream);
        log.debug("{} stream {}: request body too slow ({} bytes so far)", connection, stream.id, stream.bodyBytes);
        respond(stream, Response.text(408, "request body too slow: at least " + context.config().bodyRateMin()
                + " bytes/s required"));
        resetUnreadBody(stream);
    }

    /**
     * Loop thread: {@code stream} was answered before its body ended; once the answer is queued
     * whole, RST_STREAM(NO_ERROR) asks the client to stop sending the rest (RFC 9113 §8.1). The
     * reset counts against http-core's rapid-reset limit like those the peer's frames provoke
     * (refusing streams must not become a way to make us reset without bound); past it the
     * connection fails with GOAWAY(ENHANCE_YOUR_CALM) and closes.
     */
    private void resetUnreadBody(ServerStream stream) {
        boolean withinLimit = true;
        synchronized (lock) {
            if (h2.state() != ConnectionState.CLOSED && !streams.containsKey(stream.id)
                    && h2.streamState(stream.id) == StreamState.HALF_CLOSED_LOCAL) {
                withinLimit = h2.resetRefusedStream(stream.id, ErrorCode.NO_ERROR, System.nanoTime());
                enqueueLocked();
            }
        }
        flush();
        if (!withinLimit) {
            log.debug("{} connection error {} too many refused streams reset", connection, ErrorCode.ENHANCE_YOUR_CALM);
            failed = true;
            failAll();
            connection.closeAfterFlush();
        }
    }

    /** Loop thread: a connection error of ours: GOAWAY with {@code code}, every stream ends, close once flushed. */
    private void closeWithGoAway(ErrorCode code, String reason) {
        log.debug("{} closing: {}", connection, reason);
        synchronized (lock) {
            if (h2.state() != ConnectionState.CLOSED) {
                h2.goAway(code, reason);
                enqueueLocked();
            }
        }
        failAll();
        flush();
        connection.closeAfterFlush();
    }

    /** Graceful shutdown: GOAWAY(NO_ERROR); accepted streams finish, new ones are refused. Loop thread. */
    @Override
    public void beginDrain() {
        drain("shutdown");
    }

    /** Loop thread: GOAWAY(NO_ERROR, {@code reason}); accepted streams finish, then the connection closes. */
    private void drain(String reason) {
        synchronized (lock) {
            if (h2.state() != ConnectionState.CLOSED && h2.state() != ConnectionState.DRAINING) {
                h2.goAway(ErrorCode.NO_ERROR, reason);
                enqueueLocked();
            }
        }
        flush();
        closeIfDone();
    }

    @Override
    public void abort() {
        connection.abort(new IOException("server shut down"));
    }

    @Override
    public String toString() {
        return "h2[" + connection + "]";
    }

    /**
     * One request stream. The request parts, {@link #rejected} and the body-timing fields are
     * loop-confined (filled as frames arrive, then handed to the executor with the request);
     * the response fields and {@link #handlerRunning} are guarded by the session's lock; the
     * atomics may be settled by any thread, once.
     */
    private static final class ServerStream {
        final int id;
        final List<HeaderField> fields;
        final boolean head;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        /** Bytes of {@link #body} reserved in the server's {@link BodyMemoryBudget}. */
        final AtomicLong reservedBytes = new AtomicLong();
        /** Whether this stream holds an in-flight permit not yet given back. */
        final AtomicBoolean permit = new AtomicBoolean();
        final AtomicBoolean sourceClosed = new AtomicBoolean();
        boolean rejected;
        /** What the handler's head admission noted for it (loop thread, before dispatch). */
        Object admissionNote;
        /** The head's {@link HeadGate.Decision#priority}: the request may take the in-flight reserve. */
        boolean priority;
        /** The head's {@link HeadGate.Decision#onLoop}: the handler runs on the loop. */
        boolean onLoop;
        /** The most body bytes this request may send by the handler's head check; the server's limit applies too. */
        long bodyBytesMax = Long.MAX_VALUE;
        /** The request's HEADERS came without END_STREAM, and END_STREAM has not come yet. */
        boolean awaitingBody;
        long bodyBytes;
        long lastBodyNanos;
        long rateWindowStartNanos;
        long rateWindowStartBytes;
        /** From dispatch until the handler's answer: the stream's permit stays taken meanwhile. */
        boolean handlerRunning;
        ByteBuffer pending;
        ChunkSource source;
        boolean pulling;
        boolean sourceDone;

        ServerStream(int id, List<HeaderField> fields) {
            this.id = id;
            this.fields = fields;
            this.head = fields.stream().anyMatch(f -> f.name().equals(":method") && f.value().equals("HEAD"));
        }

        /**
         * Asks {@code gate} about this stream's head. A head without {@code :method} or
         * {@code :path} is let through, for {@link #toRequest} to refuse.
         */
        HeadGate.Decision admitAtHead(HeadGate gate, boolean endStream, Connection connection,
                                      List<X509Certificate> peerCertificates) {
            String method = null;
            String target = null;
            long contentLength = endStream ? 0 : -1;
            for (HeaderField f : fields) {
                switch (f.name()) {
                    case ":method" -> method = f.value();
                    case ":path" -> target = f.value();
                    case "content-length" -> {
                        if (!endStream) {
                            try {
                                contentLength = Long.parseLong(f.value());
                            } catch (NumberFormatException e) {
                                contentLength = -1; // http-core checks the field against the DATA
                            }
                        }
                    }
                    default -> { }
                }
            }
            if (method == null || target == null) {
                return HeadGate.Decision.READ_BODY;
            }
            return gate.admit(method, target, requestHeaders(), contentLength, connection.remoteAddress(), Protocol.HTTP_2,
                    peerCertificates);
        }

        /** The regular fields, plus {@code host} from {@code :authority} when there is none. */
        private Headers requestHeaders() {
            Headers headers = new Headers(fields.size());
            String authority = null;
            for (HeaderField f : fields) {
                if (f.name().equals(":authority")) {
                    authority = f.value();
                } else if (!f.name().startsWith(":")) {
                    headers.add(f.name(), f.value());
                }
            }
            if (authority != null && headers.first("host").isEmpty()) {
                headers.add("host", authority);
            }
            return headers;
        }

        /** http-core validated the pseudo-header fields (RFC 9113 §8.3.1). */
        Request toRequest(Connection connection, List<X509Certificate> peerCertificates) {
            String method = null;
            String target = null;
            String authority = null;
            Headers headers = new Headers(fields.size());
            for (HeaderField f : fields) {
                switch (f.name()) {
                    case ":method" -> method = f.value();
                    case ":path" -> target = f.value();
                    case ":authority" -> authority = f.value();
                    case ":scheme" -> { }
                    default -> headers.add(f.name(), f.value());
                }
            }
            if (method == null || target == null) {
                throw new IllegalArgumentException("missing :method or :path");
            }
            if (authority != null && headers.first("host").isEmpty()) {
                headers.add("host", authority);
            }
            String[] pathAndQuery = RequestTarget.split(target);
            return new Request(method, pathAndQuery[0], pathAndQuery[1], headers, body.toByteArray(),
                    connection.remoteAddress(), Protocol.HTTP_2, peerCertificates, admissionNote);
        }
    }
}
