package io.ringkv.http.server.internal;

import io.ringkv.http.LogText;
import io.ringkv.http.h1.BodyChunk;
import io.ringkv.http.h1.H1Event;
import io.ringkv.http.h1.MessageEnd;
import io.ringkv.http.h1.ParseError;
import io.ringkv.http.h1.RequestHead;
import io.ringkv.http.h1.RequestParser;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import io.ringkv.net.EventLoop;
import io.ringkv.net.ScheduledTask;
import io.ringkv.http.Headers;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.h2.UpgradeSettings;
import io.ringkv.http.hpack.HeaderField;
import java.security.cert.X509Certificate;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.time.Duration;
import io.ringkv.http.server.ServerConfig;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection on the server: parses requests, admits them against the in-flight
 * budget, hands them to the handler executor, and enforces the read timeouts. Responses are put
 * in order by the {@link ResponseSequencer}.
 *
 * <p>Pipelining: up to {@link #PIPELINE_DEPTH_MAX} requests may wait for their responses, and
 * answers queued for the socket may reach its high-water mark; past either, reading stops (the
 * peer's unread bytes stay in the socket) until responses go out.
 *
 * <p>Threading: confined to the connection's event loop, except {@link #abort()} and the
 * sequencer's callbacks, which hop onto the loop. Never blocks.
 */
final class Http1Session implements ConnectionHandler, ServerSession {
    private static final Logger log = LoggerFactory.getLogger(Http1Session.class);

    /** Requests parsed ahead of their responses on one connection. */
    static final int PIPELINE_DEPTH_MAX = 16;

    private static final byte[] SWITCHING_TO_H2C = ("HTTP/1.1 101 Switching Protocols\r\n"
            + "Connection: Upgrade\r\nUpgrade: h2c\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final ServerContext context;
    /** The client's verified certificates, read once at the end of the TLS handshake; empty on cleartext. */
    private final List<X509Certificate> peerCertificates;
    /** Told when this connection switches to HTTP/2 by {@code Upgrade: h2c}. */
    private final ProtocolSelector selector;
    private final RequestParser parser;
    private final ReadDeadline deadline;
    private Connection connection;
    private ResponseSequencer sequencer;
    /** The request whose head has arrived and whose end has not. */
    private Exchange current;
    /**
     * The body-rate check of {@link #current}, scheduled only once a read ends with its body
     * incomplete and cancelled when the body ends: a check left pending holds its request for a
     * whole window.
     */
    private ScheduledTask bodyRateCheck;
    private boolean readsPaused;
    /** No further request will be read: a close was decided (error, "Connection: close", end of input). */
    private boolean noMoreRequests;
    private boolean inputEnded;
    private long queuedAtLastCheck = -1;
    /** The connection was handed to an HTTP/2 session; this one is done. */
    private boolean upgraded;
    /**
     * Written by the loop: whether a finished exchange must make the loop re-evaluate the
     * connection (reads are paused, or it is to close once idle). While false, a finished
     * exchange costs the loop nothing: no task, no selector wake-up; the pending timer re-derives
     * the deadline when it fires. See {@link #update()} for why no wake-up can be lost.
     */
    private volatile boolean exchangesNeedLoop;

    Http1Session(ServerContext context, ProtocolSelector selector, List<X509Certificate> peerCertificates) {
        this.context = context;
        this.peerCertificates = peerCertificates;
        this.selector = selector;
        this.parser = new RequestParser(context.config().h1Limits());
        this.deadline = new ReadDeadline(context.config().idleTimeout(), context.config().headerReadTimeout(),
                this::phase, this::onReadTimeout);
    }

    @Override
    public EventLoop loop() {
        return connection.loop();
    }

    @Override
    public void onOpen(Connection opened) {
        connection = opened;
        sequencer = new ResponseSequencer(opened, context.executor(), this::exchangeDone, context::draining);
        context.opened(this);
        deadline.start(opened.loop());
        update();
    }

    @Override
    public void onRead(Connection from, ByteBuffer input) {
        deadline.onInput();
        while (true) {
            if (current == null && mustPauseBeforeNextRequest()) {
                pauseReading();
                break;
            }
            int before = input.position();
            H1Event event = parser.next(input);
            if (event == null) {
                if (current == null && input.position() > before) {
                    deadline.onHeadBytes();
                }
                break;
            }
            onEvent(event);
            if (upgraded) {
                return; // the rest of the input is HTTP/2, for the session that took over
            }
        }
        if (current != null && bodyRateCheck == null && current.admitted() && context.config().bodyRateMin() > 0) {
            scheduleBodyRateCheck(current, current.bodyLength()); // the read ended inside a body
        }
        update();
    }

    /**
     * Before parsing another request: stop when no more will be read, when enough wait for their
     * answers, or when the answers already queued pass the connection's high-water mark (a client
     * that pipelines and never reads must not make us queue answers without bound).
     */
    private boolean mustPauseBeforeNextRequest() {
        return noMoreRequests || context.draining() || sequencer.pendingCount() >= PIPELINE_DEPTH_MAX
                || !connection.isWritable();
    }

    private void pauseReading() {
        if (!readsPaused) {
            readsPaused = true;
            connection.suspendReads();
        }
    }

    private void onEvent(H1Event event) {
        switch (event) {
            case RequestHead head -> onHead(head);
            case BodyChunk chunk -> {
                if (current != null && current.admitted() && current.bodyLength() + (long) chunk.data().remaining()
                        > current.bodyBytesMax) {
                    // A body of unannounced length (chunked) past what the handler's head check gave
                    // this request: stop here, before buffering more of it.
                    refuseBody(413, "request body too large: this request takes at most " + current.bodyBytesMax
                            + " bytes");
                } else if (current != null && current.admitted() && !current.appendBody(chunk.data(), context.bodyMemory())) {
                    context.refusedRequest();
                    refuseBody(503, "request bodies fill this server's memory budget, retry later");
                }
            }
            case MessageEnd end -> onMessageEnd();
            case ParseError error -> onParseError(error);
        }
    }

    private void onHead(RequestHead head) {
        deadline.onHeadComplete();
        if (upgradeToH2c(head)) {
            return;
        }
        HeadGate.Decision decision = context.headGate().admit(head.method(), head.target(), head.headers(),
                head.contentLength(), connection.remoteAddress(), Protocol.HTTP_1_1, peerCertificates);
        if (decision.early() != null) {
            answerAtHead(head, decision.early());
            return;
        }
        InFlightBudget budget = context.budget();
        boolean admitted = budget.tryAcquire(decision.priority());
        Exchange exchange = new Exchange(head, admitted ? budget : null, decision.bodyBytesMax());
        exchange.admissionNote = decision.note();
        exchange.onLoop = decision.onLoop();
        sequencer.add(exchange);
        current = exchange;
        if (!admitted) {
            // Over budget: answer now, from the loop, and queue nothing. A body we will not read
            // leaves the connection unusable, so it closes after the 503.
            boolean bodyUnread = head.contentLength() != 0;
            context.refusedRequest();
            sequencer.respond(exchange, ResponseEncoder.error(503, "overloaded, retry later", exchange, bodyUnread));
            if (bodyUnread) {
                current = null;
                noMoreRequests = true;
            }
            return;
        }
        if (head.expectContinue() && head.contentLength() != 0) {
            sequencer.requestContinue(exchange);
        }
    }

    /**
     * The handler answered the request at its head: no permit is taken and no body byte is
     * buffered. A body that was announced is not read; the connection closes after the answer
     * (RFC 9112 §9.6), and the connection's lingering close discards what the peer already sent,
     * so the answer is not lost to a reset.
     */
    private void answerAtHead(RequestHead head, Response early) {
        Exchange exchange = new Exchange(head, null, 0);
        sequencer.add(exchange);
        current = exchange;
        boolean bodyUnread = head.contentLength() != 0;
        sequencer.respond(exchange, ResponseEncoder.encode(early, exchange, bodyUnread));
        if (bodyUnread) {
            current = null;
            noMoreRequests = true;
        }
    }

    /**
     * {@code Upgrade: h2c} (RFC 7540 §3.2), on a cleartext connection only: answers 101 and hands the connection to an HTTP/2
     * session, in which this request becomes stream 1. Only for a request with no body, with
     * nothing else pending on the connection, and one valid {@code HTTP2-Settings} field listed in
     * {@code Connection}; otherwise the upgrade is ignored and the request served over HTTP/1.1,
     * as a server may (a body would have to be read in full before the switch).
     */
    private boolean upgradeToH2c(RequestHead head) {
        Headers headers = head.headers();
        if (!selector.mayUpgradeToH2c() || head.minorVersion() != 1 || head.contentLength() != 0 || sequencer.pendingCount() != 0
                || context.draining() || !hasToken(headers.all("upgrade"), "h2c")) {
            return false;
        }
        List<String> settingsFields = headers.all(UpgradeSettings.FIELD);
        List<String> connectionOptions = headers.all("connection");
        if (settingsFields.size() != 1 || !hasToken(connectionOptions, "upgrade")
                || !hasToken(connectionOptions, "http2-settings")) {
            return false;
        }
        List<SettingsFrame.Setting> settings;
        try {
            settings = UpgradeSettings.parse(settingsFields.get(0));
        } catch (IllegalArgumentException e) {
            log.debug("{} ignores an h2c upgrade: {}", connection, LogText.of(e.getMessage()));
            return false;
        }
        upgraded = true;
        noMoreRequests = true;
        deadline.stop();
        connection.enqueue(ByteBuffer.wrap(SWITCHING_TO_H2C));
        Http2Session next = new Http2Session(context, List.of()); // h2c: cleartext, no certificates
        context.handedOver(this);
        selector.upgrade(next);
        next.onUpgrade(connection, settings, upgradeRequestFields(head));
        return true;
    }

    /** The HTTP/1.1 request as HTTP/2 fields: pseudo-fields first, connection-specific fields dropped. */
    private static List<HeaderField> upgradeRequestFields(RequestHead head) {
        List<HeaderField> fields = new ArrayList<>(head.headers().size() + 3);
        fields.add(new HeaderField(":method", head.method()));
        fields.add(new HeaderField(":scheme", "http"));
        fields.add(new HeaderField(":path", head.target()));
        Headers headers = head.headers();
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i).toLowerCase(Locale.ROOT);
            switch (name) {
                case "connection", "upgrade", "http2-settings", "keep-alive", "proxy-connection",
                        "transfer-encoding", "te" -> { }
                default -> fields.add(new HeaderField(name, headers.value(i)));
            }
        }
        return fields;
    }

    /** Whether a comma-separated list field holds {@code token}, ignoring case (RFC 9110 §5.6.1). */
    private static boolean hasToken(List<String> values, String token) {
        for (String value : values) {
            for (String part : value.split(",")) {
                if (part.strip().equalsIgnoreCase(token)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Every {@link ServerConfig#BODY_RATE_WINDOW} while the body arrives, the bytes received in that
     * window must average at least {@link ServerConfig#bodyRateMin()} per second; a body trickled
     * slower (to hold a permit and memory) gets 408 and the connection closes. The first window
     * starts when a read ends inside the body, so a body that comes with its head costs no timer.
     * Loop thread.
     */
    private void scheduleBodyRateCheck(Exchange exchange, int bytesAtWindowStart) {
        Duration window = ServerConfig.BODY_RATE_WINDOW;
        bodyRateCheck = connection.loop().schedule(() -> {
            bodyRateCheck = null;
            if (current != exchange || !connection.isOpen()) {
                return; // the request is gone
            }
            long received = exchange.bodyLength() - bytesAtWindowStart;
            long required = context.config().bodyRateMin() * window.toSeconds();
            if (received < required) {
                log.debug("{} body too slow: {} bytes in {}, {} required", connection, received, window, required);
                refuseBody(408, "request body too slow: at least " + context.config().bodyRateMin() + " bytes/s required");
                update();
                return;
            }
            scheduleBodyRateCheck(exchange, exchange.bodyLength());
        }, window);
    }

    /** The current request's body ended, was refused or cut off: its rate no longer matters. */
    private void cancelBodyRateCheck() {
        if (bodyRateCheck != null) {
            bodyRateCheck.cancel();
            bodyRateCheck = null;
        }
    }

    /** Answers the request whose body is arriving with {@code status} and closes after it (the rest is unread). */
    private void refuseBody(int status, String reason) {
        Exchange cut = current;
        current = null;
        cancelBodyRateCheck();
        noMoreRequests = true;
        cut.releaseBodyMemory();
        sequencer.respond(cut, ResponseEncoder.error(status, reason, cut, true));
    }

    private void onMessageEnd() {
        Exchange exchange = current;
        current = null;
        cancelBodyRateCheck();
        if (!exchange.head.keepAlive()) {
            noMoreRequests = true;
        }
        if (exchange.admitted()) {
            dispatch(exchange);
        }
    }

    private void dispatch(Exchange exchange) {
        String[] pathAndQuery = RequestTarget.split(exchange.head.target());
        Request request = new Request(exchange.head.method(), pathAndQuery[0], pathAndQuery[1],
                exchange.head.headers(), exchange.takeBody(), connection.remoteAddress(), Protocol.HTTP_1_1, peerCertificates,
                exchange.admissionNote);
        sequencer.dispatched(exchange);
        try {
            long dispatched = System.nanoTime();
            if (exchange.onLoop) {
                // The handler said it never blocks on such a request (HeadAdmission.onLoop).
                context.invoker().invoke(exchange, request, sequencer, dispatched);
                return;
            }
            context.executor().execute(() -> context.invoker().invoke(exchange, request, sequencer, dispatched));
        } catch (RejectedExecutionException e) {
            context.refusedRequest();
            sequencer.respond(exchange, ResponseEncoder.error(503, "overloaded, retry later", exchange, false));
        }
    }

    private void onParseError(ParseError error) {
        log.debug("{} parse error {} {}", connection, error.status(), error.reason());
        Exchange exchange = current != null && current.admitted() ? current : new Exchange(null, null, 0);
        if (exchange != current) {
            sequencer.add(exchange);
        }
        current = null;
        cancelBodyRateCheck();
        noMoreRequests = true;
        sequencer.respond(exchange, ResponseEncoder.error(error.status(), describe(error), exchange, true));
    }

    /** The answer's text: the parser's token, or for an announced body past the limit, the limit. */
    private String describe(ParseError error) {
        return error.reason().equals(RequestParser.CONTENT_LENGTH_TOO_LARGE)
                ? "request body too large: this server takes at most " + context.config().h1Limits().bodyBytesMax() + " bytes"
                : error.reason();
    }

    @Override
    public void onInputClosed(Connection from) {
        inputEnded = true;
        noMoreRequests = true;
        if (current != null && current.admitted()) {
            Exchange cut = current;
            current = null;
            cancelBodyRateCheck();
            sequencer.respond(cut, ResponseEncoder.error(400, "incomplete_request", cut, true));
        }
        update();
    }

    @Override
    public void onWritable(Connection from) {
        deadline.onProgress();
        sequencer.wakePump();
        update(); // reading may have stopped for the queued answers
    }

    @Override
    public void onClosed(Connection from, Throwable cause) {
        if (upgraded) {
            return; // the HTTP/2 session gets this callback; nothing of ours is pending
        }
        if (cause != null && log.isDebugEnabled()) {
            log.debug("{} closed: {}", from, cause.toString());
        }
        deadline.stop();
        cancelBodyRateCheck();
        sequencer.abort();
        context.closed(this);
    }

    /**
     * Graceful shutdown ({@link ServerContext#draining()} is already set): finish what has
     * started, read no new request, then close. Loop thread.
     */
    @Override
    public void beginDrain() {
        update();
    }

    /** Any thread. */
    @Override
    public void abort() {
        connection.abort(new IOException("server shut down"));
    }

    /** Any thread: an exchange left the sequencer. */
    private void exchangeDone() {
        if (!exchangesNeedLoop && !context.draining()) {
            return;
        }
        try {
            connection.loop().execute(this::update);
        } catch (RejectedExecutionException e) {
            log.debug("loop stopped; {} is closing", connection);
        }
    }

    /**
     * Re-evaluates what the connection should do now: close, resume reading, or wait. Loop thread.
     *
     * <p>It then publishes {@link #exchangesNeedLoop} and reads the pending count once more. An
     * exchange finishes by taking the sequencer's monitor (the count drops) and then reading the
     * flag; here the flag is written before the monitor is taken. So either the finishing thread
     * sees the flag and posts an update, or this re-read sees the lower count and evaluates again:
     * a paused connection cannot miss the answer that would resume it.
     */
    private void update() {
        while (connection.isOpen()) {
            int pending = sequencer.pendingCount();
            boolean idle = pending == 0 && current == null;
            if (idle && (inputEnded || context.draining())) {
                connection.closeAfterFlush();
                return;
            }
            if (readsPaused && !noMoreRequests && !context.draining() && pending < PIPELINE_DEPTH_MAX
                    && connection.isWritable()) {
                readsPaused = false;
                connection.resumeReads();
            }
            deadline.arm();
            boolean watch = readsPaused || noMoreRequests || inputEnded;
            exchangesNeedLoop = watch;
            if (!watch || sequencer.pendingCount() == pending) {
                return;
            }
        }
    }

    private ReadDeadline.Phase phase() {
        if (current != null) {
            return current.admitted() ? ReadDeadline.Phase.BODY : ReadDeadline.Phase.NONE;
        }
        if (sequencer.pendingCount() > 0) {
            return ReadDeadline.Phase.RESPONDING;
        }
        return noMoreRequests || !connection.isOpen() ? ReadDeadline.Phase.NONE : ReadDeadline.Phase.AWAITING_REQUEST;
    }

    /** The deadline of {@code phase} passed. Loop thread. */
    private void onReadTimeout(ReadDeadline.Phase phase) {
        log.debug("{} {} timeout", connection, phase);
        switch (phase) {
            case BODY -> {
                Exchange cut = current;
                current = null;
                cancelBodyRateCheck();
                noMoreRequests = true;
                sequencer.respond(cut, ResponseEncoder.error(408, "request_timeout", cut, true));
            }
            case HEAD -> {
                noMoreRequests = true;
                Exchange timedOut = new Exchange(null, null, 0);
                sequencer.add(timedOut);
                sequencer.respond(timedOut, ResponseEncoder.error(408, "request_timeout", timedOut, true));
            }
            case RESPONDING -> checkOutputStall();
            case AWAITING_REQUEST -> connection.closeAfterFlush();
            case NONE -> { }
        }
    }

    /**
     * Responses are pending: fine while the handler works or the client reads; but a client that
     * read nothing for a whole idle period while our output queue is full is holding a permit
     * hostage, so it is cut off.
     */
    private void checkOutputStall() {
        long queued = connection.queuedBytes();
        if (!connection.isWritable() && queued == queuedAtLastCheck) {
            connection.abort(new IOException("client stopped reading"));
            return;
        }
        queuedAtLastCheck = queued;
        deadline.onProgress();
    }

    @Override
    public String toString() {
        return "h1[" + connection + "]";
    }
}
