package io.ringkv.http.server.internal;

import io.ringkv.http.Headers;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Http2Config;
import io.ringkv.http.h2.Http2Connection;
import io.ringkv.http.h2.Http2Event;
import io.ringkv.http.h2.Http2Settings;
import io.ringkv.http.h2.Role;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.server.ChunkSource;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ResponseBody;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import io.ringkv.net.ScheduledTask;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
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
 * <p>Threading: the socket callbacks run on the loop. Every call into the protocol state
 * ({@link #h2}) and every change to {@link #streams} happens inside {@code synchronized (lock)},
 * one short section per step, and the frames that step produced are enqueued (lock-free, no
 * socket write) in the same section, so stream ids and HPACK blocks leave in order; the socket
 * is flushed after leaving it, never while holding the lock. Streamed bodies are
 * pulled on the handler executor.
 */
final class Http2Session implements ConnectionHandler, ServerSession {
    private static final Logger log = LoggerFactory.getLogger(Http2Session.class);

    /** preface -> open -> goaway-sent (draining) -> closed. */
    enum Phase { PREFACE, OPEN, GOAWAY_SENT, CLOSED }

    private final ServerContext context;
    private final Object lock = new Object();
    private final Http2Connection h2;
    private final long bodyBytesMax;
    // Guarded by lock.
    private final Map<Integer, ServerStream> streams = new HashMap<>();
    private Phase phase = Phase.PREFACE;
    /** DATA octets queued so far; a stall check compares it with its previous look. */
    private long dataBytesSent;
    private long dataBytesSentAtLastCheck = -1;
    private Connection connection;
    private ScheduledTask stallCheck;

    Http2Session(ServerContext context) {
        this.context = context;
        this.bodyBytesMax = context.config().h1Limits().bodyBytesMax();
        Http2Settings defaults = Http2Settings.localDefaults();
        // SETTINGS_MAX_CONCURRENT_STREAMS follows the in-flight budget: a peer that respects it
        // never meets a 503 from one connection alone.
        long concurrent = Math.min(defaults.maxConcurrentStreams(), context.budget().max());
        Http2Settings local = new Http2Settings(defaults.headerTableSize(), false, concurrent,
                defaults.initialWindowSize(), defaults.maxFrameSize(), defaults.maxHeaderListBytes());
        this.h2 = new Http2Connection(Role.SERVER, Http2Config.defaults().withLocal(local));
    }

    @Override
    public EventLoop loop() {
        return connection.loop();
    }

    @Override
    public void onOpen(Connection opened) {
        connection = opened;
        context.opened(this);
        synchronized (lock) {
            h2.start();
            enqueueLocked();
        }
        connection.flush();
        if (context.draining()) {
            beginDrain(); // shutdown began while this connection was choosing its protocol
        }
        scheduleStallCheck();
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
        ServerStream stream = new ServerStream(Http2Connection.UPGRADE_STREAM_ID, fields);
        synchronized (lock) {
            h2.start();
            h2.applyUpgradeSettings(clientSettings);
            h2.openUpgradeStream(stream.head);
            streams.put(stream.id, stream);
            enqueueLocked();
        }
        connection.flush();
        dispatch(stream);
        if (context.draining()) {
            beginDrain();
        }
        scheduleStallCheck();
    }

    private void scheduleStallCheck() {
        stallCheck = connection.loop().schedule(this::checkStall, context.config().idleTimeout());
    }

    /**
     * Loop thread, once per idle timeout: a response waiting for window that the peer left shut
     * for a whole period (no DATA octet could go out) holds an in-flight permit hostage, so the
     * connection is closed with GOAWAY(ENHANCE_YOUR_CALM).
     */
    private void checkStall() {
        boolean stalled;
        synchronized (lock) {
            boolean waiting = streams.values().stream().anyMatch(s -> s.pending != null
                    || (s.source != null && !s.sourceDone && !s.pulling));
            stalled = waiting && phase != Phase.CLOSED && dataBytesSent == dataBytesSentAtLastCheck;
            dataBytesSentAtLastCheck = dataBytesSent;
            if (stalled) {
                h2.goAway(ErrorCode.ENHANCE_YOUR_CALM, "flow_control_stalled");
                enqueueLocked();
            }
        }
        if (!stalled) {
            if (connection.isOpen()) {
                scheduleStallCheck();
            }
            return;
        }
        log.debug("{}: peer kept its window shut for {}; closing", connection, context.config().idleTimeout());
        failAll();
        connection.flush();
        connection.closeAfterFlush();
    }

    @Override
    public void onRead(Connection from, ByteBuffer input) {
        List<Http2Event> events;
        synchronized (lock) {
            events = h2.receive(input, System.nanoTime());
            enqueueLocked();
        }
        connection.flush();
        for (Http2Event event : events) {
            onEvent(event);
        }
        closeIfDone();
    }

    private void onEvent(Http2Event event) {
        switch (event) {
            case Http2Event.SettingsReceived s -> {
                synchronized (lock) {
                    if (phase == Phase.PREFACE) {
                        phase = Phase.OPEN;
                    }
                }
                resumeAll();
            }
            case Http2Event.HeadersReceived h -> onHeaders(h);
            case Http2Event.DataReceived d -> onData(d);
            case Http2Event.StreamReset r -> onReset(r.streamId());
            case Http2Event.WindowOpened w -> resumeAll();
            case Http2Event.GoAwayReceived g -> {
                synchronized (lock) {
                    if (phase != Phase.CLOSED) {
                        phase = Phase.GOAWAY_SENT;
                    }
                }
            }
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
        synchronized (lock) {
            stream = streams.get(h.streamId());
            if (stream == null) {
                if (h.trailers()) {
                    return;
                }
                stream = new ServerStream(h.streamId(), h.fields());
                streams.put(stream.id, stream);
            }
        }
        if (h.endStream()) {
            dispatch(stream);
        }
    }

    private void onData(Http2Event.DataReceived d) {
        ServerStream stream;
        int length = d.data().remaining();
        synchronized (lock) {
            stream = streams.get(d.streamId());
        }
        if (stream != null && !stream.rejected) {
            if (stream.body.size() + (long) length > bodyBytesMax) {
                stream.rejected = true;
                releaseBody(stream);
                respond(stream, Response.text(413, "request body too large"));
            } else if (!context.bodyMemory().tryReserve(length)) {
                stream.rejected = true;
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
        connection.flush();
        if (stream != null && d.endStream() && !stream.rejected) {
            dispatch(stream);
        }
    }

    private void dispatch(ServerStream stream) {
        Request request;
        try {
            request = stream.toRequest(connection);
            releaseBody(stream);
        } catch (IllegalArgumentException e) {
            respond(stream, Response.text(400, e.getMessage()));
            return;
        }
        if (!context.budget().tryAcquire()) {
            context.refusedRequest();
            respond(stream, Response.text(503, "overloaded, retry later"));
            return;
        }
        stream.permit = true;
        try {
            long dispatched = System.nanoTime();
            context.executor().execute(() -> context.invoker().invoke(request, response -> respond(stream, response), dispatched));
        } catch (RejectedExecutionException e) {
            context.refusedRequest();
            respond(stream, Response.text(503, "overloaded, retry later"));
        }
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
            if (!streams.containsKey(stream.id) || phase == Phase.CLOSED) {
                finish(stream, source);
                return;
            }
            boolean endStream = fixed == null && source == null;
            h2.sendHeaders(stream.id, fields, endStream);
            stream.pending = fixed;
            stream.source = source;
            if (endStream) {
                streams.remove(stream.id);
                finish(stream, null);
            } else if (fixed != null) {
                sendPendingLocked(stream);
            }
            enqueueLocked();
            // Only a connection going away closes when its last stream ends; asking the loop on
            // every answer would cost a task and a selector wake-up per response.
            closeNow = phase == Phase.GOAWAY_SENT && streams.isEmpty();
        }
        connection.flush();
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

    /** Under lock: queues what the windows allow of the stream's pending bytes; ends the stream when all is sent. */
    private void sendPendingLocked(ServerStream stream) {
        ByteBuffer data = stream.pending;
        boolean last = stream.source == null || stream.sourceDone;
        if (data == null) {
            if (last && stream.source != null) {
                h2.sendData(stream.id, ByteBuffer.allocate(0), true);
                streams.remove(stream.id);
                finish(stream, null);
            }
            return;
        }
        dataBytesSent += h2.sendData(stream.id, data, last);
        if (!data.hasRemaining()) {
            stream.pending = null;
            if (last) {
                streams.remove(stream.id);
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
            closeNow = phase == Phase.GOAWAY_SENT && streams.isEmpty();
        }
        connection.flush();
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
            if (streams.remove(stream.id) != null && phase != Phase.CLOSED) {
                h2.resetStream(stream.id, ErrorCode.INTERNAL_ERROR);
            }
            enqueueLocked();
        }
        log.debug("{} stream {} reset: {}", connection, stream.id, why);
        connection.flush();
        finish(stream, stream.source);
    }

    /** A window opened, the socket drained, or SETTINGS changed the windows: move every waiting body on. */
    private void resumeAll() {
        List<ServerStream> waiting = new ArrayList<>();
        synchronized (lock) {
            for (ServerStream stream : List.copyOf(streams.values())) {
                if (stream.pending != null) {
                    sendPendingLocked(stream);
                }
                if (stream.source != null && stream.pending == null && streams.containsKey(stream.id)) {
                    waiting.add(stream);
                }
            }
            enqueueLocked();
        }
        connection.flush();
        for (ServerStream stream : waiting) {
            schedulePull(stream);
        }
    }

    private void onReset(int streamId) {
        ServerStream stream;
        synchronized (lock) {
            stream = streams.remove(streamId);
        }
        if (stream != null) {
            finish(stream, stream.pulling ? null : stream.source);
        }
    }

    /** The stream is over: its permit goes back once; a source not being pulled is closed here. */
    private void finish(ServerStream stream, ChunkSource source) {
        releaseBody(stream);
        if (stream.permit) {
            stream.permit = false;
            context.budget().release();
        }
        if (source != null && !stream.sourceClosed) {
            stream.sourceClosed = true;
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

    private void failAll() {
        List<ServerStream> all;
        synchronized (lock) {
            phase = Phase.CLOSED;
            all = List.copyOf(streams.values());
            streams.clear();
        }
        for (ServerStream stream : all) {
            finish(stream, stream.pulling ? null : stream.source);
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
            close = phase == Phase.GOAWAY_SENT && streams.isEmpty();
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

    @Override
    public void onWritable(Connection from) {
        resumeAll();
    }

    @Override
    public void onClosed(Connection from, Throwable cause) {
        if (cause != null && log.isDebugEnabled()) {
            log.debug("{} closed: {}", from, cause.toString());
        }
        if (stallCheck != null) {
            stallCheck.cancel();
        }
        failAll();
        context.closed(this);
    }

    /** Graceful shutdown: GOAWAY(NO_ERROR); accepted streams finish, new ones are refused. Loop thread. */
    @Override
    public void beginDrain() {
        synchronized (lock) {
            if (phase != Phase.CLOSED && phase != Phase.GOAWAY_SENT) {
                h2.goAway(ErrorCode.NO_ERROR, "shutdown");
                phase = Phase.GOAWAY_SENT;
                enqueueLocked();
            }
        }
        connection.flush();
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

    /** One request stream. Fields other than the request parts are guarded by the session's lock. */
    private static final class ServerStream {
        final int id;
        final List<HeaderField> fields;
        final boolean head;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        /** Bytes of {@link #body} reserved in the server's {@link BodyMemoryBudget}. */
        final AtomicLong reservedBytes = new AtomicLong();
        boolean rejected;
        volatile boolean permit;
        ByteBuffer pending;
        ChunkSource source;
        boolean pulling;
        boolean sourceDone;
        volatile boolean sourceClosed;

        ServerStream(int id, List<HeaderField> fields) {
            this.id = id;
            this.fields = fields;
            this.head = fields.stream().anyMatch(f -> f.name().equals(":method") && f.value().equals("HEAD"));
        }

        /** http-core validated the pseudo-header fields (RFC 9113 §8.3.1). */
        Request toRequest(Connection connection) {
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
                    connection.remoteAddress(), Protocol.HTTP_2);
        }
    }
}
