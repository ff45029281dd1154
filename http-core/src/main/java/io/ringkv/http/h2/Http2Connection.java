package io.ringkv.http.h2;

import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HeaderListTooLargeException;
import io.ringkv.http.hpack.HpackDecoder;
import io.ringkv.http.hpack.HpackEncoder;
import io.ringkv.http.hpack.HpackException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The protocol state of one HTTP/2 connection, for either role: bytes in, events out, bytes to
 * send. The client and the server each drive one per socket; it owns no socket and no thread.
 *
 * <p>Inbound: {@link #receive(ByteBuffer, long)} parses frames, checks them against the stream
 * and connection rules, answers what the protocol answers by itself (SETTINGS ACK, PING ACK,
 * RST_STREAM for stream errors, GOAWAY for connection errors), ignores what arrives on streams it
 * reset (RFC 9113 §5.1), and returns {@link Http2Event}s.
 * Outbound: {@link #openStream}, {@link #sendHeaders}, {@link #sendData}, {@link #resetStream},
 * {@link #consumed}, {@link #ping}, {@link #goAway} queue frames. {@link #drainOutput()} hands
 * the queued frames over, in order, for the caller to write.
 *
 * <p>Threading: not thread-safe. The caller serialises all calls with one short critical section
 * per connection; that same section makes stream-id allocation, HPACK encoding and enqueueing
 * one step, so ids and header blocks leave in order (RFC 9113 §5.1.1, RFC 7541 §2.2). Never hold
 * it while writing to the socket: drain, leave, then write. Time comes in as {@code nowNanos}.
 */
public final class Http2Connection {
    /** RFC 7540 §3.2: the stream an upgraded HTTP/1.1 request continues on. */
    public static final int UPGRADE_STREAM_ID = 1;

    private final Role role;
    private final Http2Config config;
    private final FrameParser parser;
    private final FrameGenerator generator = new FrameGenerator();
    private final HpackEncoder encoder;
    private final HpackDecoder decoder;
    private final StreamRegistry streams;
    private final AbuseGuard guard;
    private final FieldBlockAssembler assembler;
    private final SendWindow connectionSendWindow = new SendWindow(0, Http2Settings.PROTOCOL_DEFAULTS.initialWindowSize());
    private final ReceiveWindow connectionReceiveWindow;
    private final List<ByteBuffer> output = new ArrayList<>();
    private Http2Settings peer = Http2Settings.PROTOCOL_DEFAULTS;
    private ConnectionState state = ConnectionState.AWAITING_SETTINGS;

    public Http2Connection(Role role, Http2Config config) {
        this.role = role;
        this.config = config;
        this.parser = role == Role.SERVER ? FrameParser.forServer() : FrameParser.forClient();
        this.parser.maxFrameSize(config.local().maxFrameSize());
        this.encoder = new HpackEncoder(config.hpack());
        this.decoder = new HpackDecoder(HpackDecoder.DEFAULT_TABLE_CAPACITY, config.local().maxHeaderListBytes());
        this.streams = new StreamRegistry(role);
        this.guard = new AbuseGuard(config.limits());
        this.assembler = new FieldBlockAssembler(guard);
        this.connectionReceiveWindow = new ReceiveWindow(0, config.connectionWindowBytes(), config.creditRatio());
    }

    /** Queues what opens the connection: the client preface, our SETTINGS, the connection window. */
    public void start() {
        if (role == Role.CLIENT) {
            output.add(Preface.bytes());
        }
        output.add(generator.generate(new SettingsFrame(false, config.local().differencesFromDefaults())));
        int extra = config.connectionWindowBytes() - Http2Settings.PROTOCOL_DEFAULTS.initialWindowSize();
        if (extra > 0) {
            output.add(generator.generate(new WindowUpdateFrame(0, extra)));
        }
    }

    /**
     * RFC 7540 §3.2 (HTTP/2 by {@code Upgrade: h2c}): the HTTP/1.1 request sent before the switch
     * becomes stream 1, already complete in the client's direction. Call once, right after
     * {@link #start()} and before any other stream: the client's stream 1 is HALF_CLOSED_LOCAL
     * (its response arrives on it), the server's HALF_CLOSED_REMOTE (it answers on it). No frame
     * is queued for the request itself. Returns the stream id, 1.
     *
     * @param headRequest whether the upgrade request was HEAD (its response carries no body)
     * @throws IllegalStateException if a stream was opened already
     */
    public int openUpgradeStream(boolean headRequest) {
        if (!streams.isEmpty() || (role == Role.CLIENT ? !streams.isIdle(UPGRADE_STREAM_ID) : streams.lastPeerId() != 0)) {
            throw new IllegalStateException("the upgrade stream must be the connection's first stream");
        }
        Http2Stream stream;
        if (role == Role.CLIENT) {
            stream = streams.openLocal(peer.initialWindowSize(), config.local().initialWindowSize(), config.creditRatio());
            applyLocal(stream, StreamEvent.SEND_HEADERS);
            applyLocal(stream, StreamEvent.SEND_END_STREAM);
        } else {
            try {
                stream = streams.openPeer(UPGRADE_STREAM_ID, peer.initialWindowSize(),
                        config.local().initialWindowSize(), config.creditRatio());
                stream.apply(StreamEvent.RECV_HEADERS);
                stream.apply(StreamEvent.RECV_END_STREAM);
            } catch (Http2Error impossible) {
                throw new IllegalStateException("stream 1 cannot be refused on a new connection", impossible);
            }
        }
        stream.headRequest(headRequest);
        return stream.id;
    }

    /**
     * Server role, RFC 7540 §3.2.1: the settings of an {@code Upgrade: h2c} request's
     * {@code HTTP2-Settings} field ({@link UpgradeSettings#parse}) become the client's first
     * settings, before any frame arrives. Not acknowledged (the 101 response is the
     * acknowledgement); the client's SETTINGS frame after its preface is still awaited. Call
     * after {@link #start()} and before {@link #openUpgradeStream}, whose windows they size.
     */
    public void applyUpgradeSettings(List<SettingsFrame.Setting> settings) {
        if (role != Role.SERVER || !streams.isEmpty()) {
            throw new IllegalStateException("upgrade settings apply to a new server connection only");
        }
        peer = peer.apply(settings);
        encoder.maxTableCapacity(peer.headerTableSize());
        generator.maxFrameSize(peer.maxFrameSize());
    }

    public Role role() {
        return role;
    }

    /** The connection's lifecycle; changed only through {@link ConnectionState#next}. */
    public ConnectionState state() {
        return state;
    }

    public Http2Settings peerSettings() {
        return peer;
    }

    /**
     * True while a field block (HEADERS or PUSH_PROMISE without END_HEADERS) waits for its
     * CONTINUATION frames: nothing else may arrive meanwhile, so a peer that stops here holds
     * the connection. The server times it out.
     */
    public boolean awaitingContinuation() {
        return parser.inFieldBlock();
    }

    /**
     * The frames queued so far, oldest first, in an unmodifiable list; the queue is empty
     * afterwards. Often there is nothing or one frame (a read that needs no answer, one HEADERS):
     * those cost no list or a one-element one.
     */
    public List<ByteBuffer> drainOutput() {
        List<ByteBuffer> drained = switch (output.size()) {
            case 0 -> List.of();
            case 1 -> List.of(output.getFirst());
            default -> List.copyOf(output);
        };
        output.clear();
        return drained;
    }

    // ---- inbound ----

    /** Consumes {@code bytes} and returns what happened. After a connection error, input is ignored. */
    public List<Http2Event> receive(ByteBuffer bytes, long nowNanos) {
        return receive(bytes, nowNanos, new ArrayList<>());
    }

    /**
     * Consumes {@code bytes} and appends what happened to {@code events}, which it returns: a
     * connection's owner reads every few microseconds and may hand in one list each time,
     * cleared, instead of receiving a new one per read.
     */
    public List<Http2Event> receive(ByteBuffer bytes, long nowNanos, List<Http2Event> events) {
        if (state == ConnectionState.CLOSED) {
            bytes.position(bytes.limit());
            return events;
        }
        while (true) {
            try {
                Frame frame = parser.next(bytes);
                if (frame == null) {
                    break;
                }
                onFrame(frame, nowNanos, events);
            } catch (Http2Error e) {
                if (e instanceof StreamError streamError) {
                    // RFC 9113 §5.1: a stream we reset already had its RST_STREAM; what still comes
                    // on it (even malformed) is ignored, not answered with another one.
                    if (!streams.wasResetLocally(streamError.streamId())) {
                        resetAfterError(streamError, events);
                        if (!countProvokedReset(nowNanos, events)) {
                            bytes.position(bytes.limit());
                            break;
                        }
                    }
                    continue;
                }
                fail((ConnectionError) e, events);
                bytes.position(bytes.limit());
                break;
            }
        }
        return events;
    }

    private void onFrame(Frame frame, long now, List<Http2Event> events) throws Http2Error {
        if (state == ConnectionState.AWAITING_SETTINGS && !(frame instanceof SettingsFrame s && !s.ack())) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "settings_expected");
        }
        switch (frame) {
            case DataFrame f -> onData(f, now, events);
            case HeadersFrame f -> onHeaders(f, events);
            case ContinuationFrame f -> onContinuation(f, events);
            case PriorityFrame f -> onPriority(f);
            case RstStreamFrame f -> onRstStream(f, now, events);
            case SettingsFrame f -> onSettings(f, now, events);
            case PushPromiseFrame f -> onPushPromise(f, events);
            case PingFrame f -> onPing(f, now, events);
            case GoAwayFrame f -> onGoAway(f, events);
            case WindowUpdateFrame f -> onWindowUpdate(f, events);
        }
    }

    private void onData(DataFrame f, long now, List<Http2Event> events) throws Http2Error {
        if (f.data().remaining() == 0 && !f.endStream()) {
            guard.onEmptyData(now);
        }
        int length = f.flowControlledLength();
        connectionReceiveWindow.receive(length);
        Http2Stream stream = streams.get(f.streamId());
        if (stream == null) {
            if (streams.isIdle(f.streamId())) {
                throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "data_on_idle_stream");
            }
            // RFC 9113 §6.9: DATA on a closed stream still counted against the connection window
            // at both ends, so its credit goes back, or the window would shrink for good.
            creditConnection(length);
            if (streams.wasResetLocally(f.streamId())) {
                return; // RFC 9113 §5.1: sent before the peer saw our RST_STREAM; ignored
            }
            throw new StreamError(f.streamId(), ErrorCode.STREAM_CLOSED, "data_on_closed_stream");
        }
        try {
            receiveData(stream, f, length);
        } catch (StreamError e) {
            creditConnection(length);
            throw e;
        }
        events.add(new Http2Event.DataReceived(f.streamId(), f.data(), f.endStream()));
    }

    private void receiveData(Http2Stream stream, DataFrame f, int length) throws Http2Error {
        stream.apply(StreamEvent.RECV_DATA);
        if (stream.inbound() != Http2Stream.Inbound.BODY) {
            throw new StreamError(stream.id, ErrorCode.PROTOCOL_ERROR, "data_before_headers");
        }
        stream.receiveWindow.receive(length);
        stream.receiveBody(f.data().remaining());
        // Padding never reaches the application, so its credit is returned at once.
        int padding = length - f.data().remaining();
        if (padding > 0) {
            consumed(stream.id, padding);
        }
        if (f.endStream()) {
            endInbound(stream);
        }
    }

    private void endInbound(Http2Stream stream) throws Http2Error {
        stream.checkBodyComplete();
        stream.apply(StreamEvent.RECV_END_STREAM);
        streams.forgetIfClosed(stream);
    }

    private void onHeaders(HeadersFrame f, List<Http2Event> events) throws Http2Error {
        if (!f.endHeaders()) {
            assembler.start(f, f.fragment());
            return;
        }
        onHeaderBlock(f, f.fragment(), events);
    }

    private void onContinuation(ContinuationFrame f, List<Http2Event> events) throws Http2Error {
        FieldBlockAssembler.Block block = assembler.append(f);
        if (block == null) {
            return;
        }
        if (block.opening() instanceof PushPromiseFrame push) {
            onPushPromiseBlock(push, block.fragment(), events);
        } else {
            onHeaderBlock((HeadersFrame) block.opening(), block.fragment(), events);
        }
    }

    /**
     * Decodes first, whatever happens next: the HPACK context must stay in step (RFC 9113 §4.3),
     * also for a block on a stream we reset, which is then dropped (§5.1).
     */
    private void onHeaderBlock(HeadersFrame f, ByteBuffer block, List<Http2Event> events) throws Http2Error {
        List<HeaderField> fields;
        try {
            fields = decode(f.streamId(), block);
        } catch (StreamError e) {
            openRejected(f.streamId());
            throw e;
        }
        if (streams.wasResetLocally(f.streamId())) {
            return; // sent before the peer saw our RST_STREAM
        }
        if (f.priority() != null && f.priority().streamDependency() == f.streamId()) {
            openRejected(f.streamId());
            throw new StreamError(f.streamId(), ErrorCode.PROTOCOL_ERROR, "priority_self_dependency");
        }
        Http2Stream stream = streams.get(f.streamId());
        if (stream == null) {
            stream = openPeerStream(f.streamId());
        } else if (stream.state() == StreamState.RESERVED_REMOTE
                && streams.activeInitiatedBy(false) >= config.local().maxConcurrentStreams()) {
            // RFC 9113 §5.1.2: a pushed response beyond our stream limit is refused.
            throw new StreamError(f.streamId(), ErrorCode.REFUSED_STREAM, "too_many_pushed_streams");
        }
        if (stream.state() == StreamState.HALF_CLOSED_REMOTE) {
            // RFC 9113 §5.1: after the peer's END_STREAM, another HEADERS is STREAM_CLOSED, whatever
            // its block holds (judged first, a block of pseudo-fields would read as bad trailers).
            throw new StreamError(f.streamId(), ErrorCode.STREAM_CLOSED, "headers_after_end_stream");
        }
        boolean trailers = validateInbound(stream, fields, f.endStream());
        stream.apply(StreamEvent.RECV_HEADERS);
        if (f.endStream()) {
            endInbound(stream);
        }
        events.add(new Http2Event.HeadersReceived(f.streamId(), fields, f.endStream(), trailers));
    }

    private List<HeaderField> decode(int streamId, ByteBuffer block) throws Http2Error {
        try {
            return decoder.decode(block);
        } catch (HeaderListTooLargeException e) {
            throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, e.reason());
        } catch (HpackException e) {
            throw new ConnectionError(ErrorCode.COMPRESSION_ERROR, e.reason());
        }
    }

    private Http2Stream openPeerStream(int id) throws Http2Error {
        if (role == Role.SERVER && !streams.isIdle(id) && streams.wasRecentlyClosed(id)) {
            // RFC 9113 §5.1 (closed: MAY be a connection error) and h2spec's strict reading: a
            // client never has a reason to send HEADERS on a stream that closed by END_STREAM both
            // ways or by its own RST_STREAM (ours were handled above), so nothing legitimate is lost.
            throw new ConnectionError(ErrorCode.STREAM_CLOSED, "headers_on_closed_stream");
        }
        if (!streams.isIdle(id) && role == Role.CLIENT) {
            // RFC 9113 §5.1: a stream that closed otherwise than by our reset (END_STREAM both
            // ways, or the peer's RST_STREAM) costs that stream only while the id is remembered.
            // A client never reads a HEADERS as a new stream: on an id it opened (or was promised)
            // whose memory is gone, it is a late answer, typically to a request reset more than
            // RESET_BY_US_MAX resets ago, and must not take the other streams down with it.
            throw new StreamError(id, ErrorCode.STREAM_CLOSED, "headers_on_closed_stream");
        }
        if (role == Role.CLIENT) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "server_opened_stream");
        }
        Http2Stream stream = streams.openPeer(id, peer.initialWindowSize(), config.local().initialWindowSize(),
                config.creditRatio());
        // RFC 9113 §5.1.2: beyond our limit the stream is refused (and must not be counted as processed).
        boolean refused = !state.acceptsNewStreams()
                || streams.activeInitiatedBy(false) >= config.local().maxConcurrentStreams();
        // The HEADERS opened it (§5.1: idle -> open) whatever we make of the block: a refused or
        // malformed request is reset from OPEN, and closes like any stream we reset.
        stream.apply(StreamEvent.RECV_HEADERS);
        if (refused) {
            throw new StreamError(id, ErrorCode.REFUSED_STREAM, "too_many_streams");
        }
        return stream;
    }

    /**
     * A header block rejected before its stream was looked up (its field list too large, a
     * priority on itself) still opened the stream if it was new (RFC 9113 §5.1): the peer has
     * used the id, our RST_STREAM closes it, and the frames the peer sent after the block are
     * then ignored like those on any stream we reset, instead of being taken for frames on an
     * idle stream (a connection error).
     */
    private void openRejected(int id) throws Http2Error {
        if (streams.get(id) != null || !streams.isIdle(id)) {
            return;
        }
        if (role == Role.CLIENT) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "server_opened_stream");
        }
        streams.openPeer(id, peer.initialWindowSize(), config.local().initialWindowSize(), config.creditRatio())
                .apply(StreamEvent.RECV_HEADERS);
    }

    /** Returns true if the block is trailers. 1xx responses may precede the final one. */
    private boolean validateInbound(Http2Stream stream, List<HeaderField> fields, boolean endStream) throws StreamError {
        if (stream.inbound() == Http2Stream.Inbound.BODY) {
            if (!endStream) {
                throw new StreamError(stream.id, ErrorCode.PROTOCOL_ERROR, "trailers_without_end_stream");
            }
            HeaderValidator.trailers(stream.id, fields);
            return true;
        }
        boolean bodyless;
        if (role == Role.SERVER) {
            HeaderValidator.request(stream.id, fields);
            bodyless = false;
        } else {
            int status = HeaderValidator.response(stream.id, fields);
            if (status >= 100 && status < 200) {
                if (endStream) {
                    throw new StreamError(stream.id, ErrorCode.PROTOCOL_ERROR, "informational_with_end_stream");
                }
                return false;
            }
            bodyless = stream.headRequest() || status == 204 || status == 304;
        }
        long contentLength = HeaderValidator.contentLength(stream.id, fields);
        stream.expectBodyBytes(bodyless ? -1 : contentLength);
        stream.inbound(Http2Stream.Inbound.BODY);
        return false;
    }

    private void onPriority(PriorityFrame f) throws Http2Error {
        Http2Stream stream = streams.get(f.streamId());
        if (stream != null) {
            stream.apply(StreamEvent.RECV_PRIORITY);
        }
    }

    private void onRstStream(RstStreamFrame f, long now, List<Http2Event> events) throws Http2Error {
        if (streams.isIdle(f.streamId())) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "rst_stream_on_idle_stream");
        }
        guard.onPeerReset(now);
        Http2Stream stream = streams.get(f.streamId());
        if (stream == null) {
            return; // already closed: the reset crossed ours or our END_STREAM
        }
        stream.apply(StreamEvent.RECV_RST_STREAM);
        streams.forgetIfClosed(stream);
        events.add(new Http2Event.StreamReset(f.streamId(), f.error(), true, "reset_by_peer"));
    }

    private void onSettings(SettingsFrame f, long now, List<Http2Event> events) throws Http2Error {
        if (f.ack()) {
            // Our table size limit binds the peer's encoder only once it has acknowledged it.
            decoder.maxTableCapacity(config.local().headerTableSize());
            return;
        }
        guard.onSettings(now);
        Http2Settings previous = peer;
        peer = peer.apply(f.settings());
        encoder.maxTableCapacity(peer.headerTableSize());
        generator.maxFrameSize(peer.maxFrameSize());
        shiftSendWindows(peer.initialWindowSize() - (long) previous.initialWindowSize(), events);
        output.add(generator.generate(SettingsFrame.ACK_FRAME));
        state = state.next(ConnectionState.Event.SETTINGS_RECEIVED);
        events.add(new Http2Event.SettingsReceived(peer));
    }

    /** RFC 9113 §6.9.2: the delta applies to every stream's send window, not the connection's. */
    private void shiftSendWindows(long delta, List<Http2Event> events) throws ConnectionError {
        if (delta == 0) {
            return;
        }
        for (Http2Stream stream : streams.all()) {
            boolean wasBlocked = stream.sendWindow.available() == 0;
            stream.sendWindow.shift(delta);
            if (wasBlocked && stream.sendWindow.available() > 0) {
                events.add(new Http2Event.WindowOpened(stream.id));
            }
        }
    }

    private void onPushPromise(PushPromiseFrame f, List<Http2Event> events) throws Http2Error {
        // RFC 9113 §8.4: only servers push, and only when the client allows it.
        if (role == Role.SERVER || !config.local().enablePush()) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "push_not_allowed");
        }
        if (!f.endHeaders()) {
            assembler.start(f, f.fragment());
            return;
        }
        onPushPromiseBlock(f, f.fragment(), events);
    }

    /**
     * RFC 9113 §6.6 and §8.4. The promised id must be a new server id (else a connection error, from
     * {@link StreamRegistry#openPeer}); the associated stream must be one of ours that the server may
     * still send on. A promise that crossed our RST_STREAM of the associated stream is legal: the
     * promised stream is reserved and cancelled at once. A promised request that is not safe and
     * cacheable is a stream error on the promised stream.
     */
    private void onPushPromiseBlock(PushPromiseFrame f, ByteBuffer block, List<Http2Event> events) throws Http2Error {
        List<HeaderField> fields = decode(f.streamId(), block);
        Http2Stream associated = streams.get(f.streamId());
        boolean crossedOurReset = associated == null && streams.wasResetLocally(f.streamId());
        // RFC 9113 §6.6: only on a stream we opened (never on a pushed one) that the server may still send on.
        if (!crossedOurReset && (associated == null || !associated.state().canReceive() || !role.initiates(f.streamId()))) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "push_promise_on_bad_stream");
        }
        Http2Stream promised = streams.openPeer(f.promisedStreamId(), peer.initialWindowSize(),
                config.local().initialWindowSize(), config.creditRatio());
        promised.apply(StreamEvent.RECV_PUSH_PROMISE);
        if (crossedOurReset) {
            throw new StreamError(f.promisedStreamId(), ErrorCode.CANCEL, "push_promise_on_reset_stream");
        }
        HeaderValidator.promisedRequest(f.promisedStreamId(), fields);
        promised.headRequest(fields.stream().anyMatch(h -> h.name().equals(":method") && h.value().equals("HEAD")));
        events.add(new Http2Event.PushPromised(f.streamId(), f.promisedStreamId(), fields));
    }

    private void onPing(PingFrame f, long now, List<Http2Event> events) throws ConnectionError {
        if (f.ack()) {
            events.add(new Http2Event.PingAcknowledged(f.opaqueData()));
            return;
        }
        guard.onPing(now);
        output.add(generator.generate(new PingFrame(f.opaqueData(), true)));
    }

    private void onGoAway(GoAwayFrame f, List<Http2Event> events) throws Http2Error {
        state = state.next(ConnectionState.Event.GOAWAY_RECEIVED);
        String debug = StandardCharsets.UTF_8.decode(f.debugData().duplicate()).toString();
        events.add(new Http2Event.GoAwayReceived(f.lastStreamId(), f.error(), debug));
        // RFC 9113 §6.8: our streams above lastStreamId were not processed; safe to retry elsewhere.
        for (Http2Stream stream : streams.all()) {
            if (role.initiates(stream.id) && stream.id > f.lastStreamId()) {
                stream.apply(StreamEvent.RECV_RST_STREAM);
                streams.forgetIfClosed(stream);
                events.add(new Http2Event.StreamReset(stream.id, ErrorCode.REFUSED_STREAM, true, "goaway"));
            }
        }
    }

    private void onWindowUpdate(WindowUpdateFrame f, List<Http2Event> events) throws Http2Error {
        if (f.streamId() == 0) {
            boolean wasBlocked = connectionSendWindow.available() == 0;
            connectionSendWindow.credit(f.increment());
            if (wasBlocked && connectionSendWindow.available() > 0) {
                events.add(new Http2Event.WindowOpened(0));
            }
            return;
        }
        if (streams.isIdle(f.streamId())) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "window_update_on_idle_stream");
        }
        Http2Stream stream = streams.get(f.streamId());
        if (stream == null) {
            return; // closed: the update crossed our END_STREAM or RST_STREAM
        }
        stream.apply(StreamEvent.RECV_WINDOW_UPDATE);
        boolean wasBlocked = stream.sendWindow.available() == 0;
        stream.sendWindow.credit(f.increment());
        if (wasBlocked && stream.sendWindow.available() > 0) {
            events.add(new Http2Event.WindowOpened(stream.id));
        }
    }

    private void resetAfterError(StreamError e, List<Http2Event> events) {
        output.add(generator.generate(new RstStreamFrame(e.streamId(), e.code())));
        if (!streams.isIdle(e.streamId())) {
            // An idle id (a malformed frame naming it) is no stream of the peer's yet: it may still open it.
            streams.resetLocally(e.streamId());
        }
        Http2Stream stream = streams.get(e.streamId());
        if (stream != null) {
            try {
                stream.apply(StreamEvent.SEND_RST_STREAM);
            } catch (Http2Error | IllegalStateException impossible) {
                // SEND_RST_STREAM is legal in every state but IDLE, and an idle stream is not stored
            }
            streams.forgetIfClosed(stream);
        }
        events.add(new Http2Event.StreamReset(e.streamId(), e.code(), false, e.reason()));
    }

    /**
     * Server role: a RST_STREAM the peer's frame made us send (a zero WINDOW_UPDATE, DATA on a
     * closed stream, a refused stream...) costs us what one the peer sends itself does, and
     * resetting streams whose requests already run is the same attack ("MadeYouReset",
     * CVE-2025-8671): both count against the rapid-reset limit. Not on the client, whose peer is
     * the server it chose. Returns false when the limit was passed and the connection failed.
     */
    private boolean countProvokedReset(long now, List<Http2Event> events) {
        if (role != Role.SERVER) {
            return true;
        }
        try {
            guard.onProvokedReset(now);
            return true;
        } catch (ConnectionError e) {
            fail(e, events);
            return false;
        }
    }

    private void fail(ConnectionError e, List<Http2Event> events) {
        output.add(generator.generate(new GoAwayFrame(streams.lastPeerId(), e.code(), e.reason())));
        state = state.next(ConnectionState.Event.CONNECTION_ERROR);
        events.add(new Http2Event.ConnectionFailed(e.code(), e.reason()));
    }

    // ---- outbound ----

    /** True if the peer's SETTINGS_MAX_CONCURRENT_STREAMS and our state allow another stream. */
    public boolean canOpenStream() {
        return role == Role.CLIENT && state.acceptsNewStreams() && !streams.localIdsExhausted()
                && streams.activeInitiatedBy(true) < peer.maxConcurrentStreams();
    }

    /**
     * Client: allocates the next stream id, encodes the request header block and queues it, in
     * one step. Returns the stream id.
     *
     * @throws IllegalStateException    if {@link #canOpenStream()} is false
     * @throws IllegalArgumentException if the fields are not a valid HTTP/2 request
     */
    public int openStream(List<HeaderField> fields, boolean endStream) {
        if (!canOpenStream()) {
            throw new IllegalStateException("cannot open a stream now: " + state + ", "
                    + streams.activeInitiatedBy(true) + " active of " + peer.maxConcurrentStreams());
        }
        // Inline rather than through checkOutbound: a capturing lambda on every request allocates.
        try {
            HeaderValidator.request(0, fields);
        } catch (StreamError e) {
            throw invalidOutbound(e);
        }
        Http2Stream stream = streams.openLocal(peer.initialWindowSize(), config.local().initialWindowSize(),
                config.creditRatio());
        stream.headRequest(isHeadRequest(fields));
        queueHeaders(stream, fields, endStream);
        return stream.id;
    }

    /**
     * Server: promises a push on {@code associatedStreamId} (RFC 9113 §8.4): reserves the next
     * server stream id, encodes the promised request and queues the PUSH_PROMISE, in one step.
     * Answer it later with {@link #sendHeaders} and {@link #sendData} on the returned id.
     *
     * @throws IllegalStateException    if we are not a server, the client disabled push, or the
     *                                  associated stream is not open for sending
     * @throws IllegalArgumentException if the fields are not a safe, cacheable request
     */
    public int pushPromise(int associatedStreamId, List<HeaderField> fields) {
        Http2Stream associated = streams.get(associatedStreamId);
        if (role != Role.SERVER || !peer.enablePush() || associated == null || !associated.state().canSend()) {
            throw new IllegalStateException("cannot push on stream " + associatedStreamId);
        }
        checkOutbound(() -> HeaderValidator.promisedRequest(0, fields));
        Http2Stream promised = streams.openLocal(peer.initialWindowSize(), config.local().initialWindowSize(),
                config.creditRatio());
        applyLocal(promised, StreamEvent.SEND_PUSH_PROMISE);
        // The generator copies the block into the frame at once, so the encoder's own buffer will do.
        output.add(generator.pushPromise(associatedStreamId, promised.id, encoder.encodeReused(fields)));
        return promised.id;
    }

    /** Server response headers (1xx or final), or trailers (with {@code endStream}) on either side. */
    public void sendHeaders(int streamId, List<HeaderField> fields, boolean endStream) {
        Http2Stream stream = requireStream(streamId);
        boolean trailers = fields.isEmpty() || !fields.get(0).name().startsWith(":");
        checkOutbound(() -> {
            if (trailers) {
                HeaderValidator.trailers(streamId, fields);
            } else if (role == Role.SERVER) {
                HeaderValidator.response(streamId, fields);
            } else {
                throw new StreamError(streamId, ErrorCode.PROTOCOL_ERROR, "client_sends_request_once");
            }
        });
        queueHeaders(stream, fields, endStream);
    }

    private void queueHeaders(Http2Stream stream, List<HeaderField> fields, boolean endStream) {
        applyLocal(stream, StreamEvent.SEND_HEADERS);
        if (endStream) {
            applyLocal(stream, StreamEvent.SEND_END_STREAM);
        }
        output.add(generator.headers(stream.id, encoder.encodeReused(fields), endStream, null));
        streams.forgetIfClosed(stream);
    }

    /**
     * Queues as much of {@code data} as both send windows allow, in frames no larger than the
     * peer's max frame size, and advances its position. END_STREAM goes on the last frame only
     * if everything was sent. Returns the octets taken; when that is less than was offered, wait
     * for {@link Http2Event.WindowOpened} and call again with the rest. The queued payloads are
     * slices of {@code data}, not copies: its bytes must not change until they were written.
     */
    public int sendData(int streamId, ByteBuffer data, boolean endStream) {
        Http2Stream stream = requireStream(streamId);
        applyLocal(stream, StreamEvent.SEND_DATA);
        int allowed = Math.min(data.remaining(),
                Math.min(stream.sendWindow.available(), connectionSendWindow.available()));
        if (allowed == 0 && data.hasRemaining()) {
            return 0; // blocked: nothing is queued, not even an empty frame
        }
        int sent = 0;
        do {
            int n = Math.min(allowed - sent, generator.maxFrameSize());
            boolean last = sent + n == data.remaining() && endStream;
            // Header and payload as two buffers: the payload is the sender's bytes, not a copy.
            output.add(generator.dataHeader(streamId, n, last));
            if (n > 0) {
                output.add(data.slice(data.position() + sent, n));
            }
            sent += n;
        } while (sent < allowed);
        stream.sendWindow.consume(allowed);
        connectionSendWindow.consume(allowed);
        boolean finished = allowed == data.remaining() && endStream;
        data.position(data.position() + allowed);
        if (finished) {
            applyLocal(stream, StreamEvent.SEND_END_STREAM);
            streams.forgetIfClosed(stream);
        }
        return allowed;
    }

    /** Octets {@link #sendData} would take now for this stream. */
    public int sendableBytes(int streamId) {
        Http2Stream stream = streams.get(streamId);
        return stream == null || !stream.state().canSend() ? 0
                : Math.min(stream.sendWindow.available(), connectionSendWindow.available());
    }

    /**
     * The application took {@code bytes} of DATA from this stream: credit returns to the peer in
     * batches. The connection window is always credited; the stream's only while the peer may
     * still send on it (no WINDOW_UPDATE after END_STREAM, RFC 9113 §6.9).
     */
    public void consumed(int streamId, int bytes) {
        creditConnection(bytes);
        Http2Stream stream = streams.get(streamId);
        if (stream != null && stream.state().canReceive()) {
            int increment = stream.receiveWindow.consumed(bytes);
            if (increment > 0) {
                output.add(generator.generate(new WindowUpdateFrame(streamId, increment)));
            }
        }
    }

    private void creditConnection(int bytes) {
        int increment = connectionReceiveWindow.consumed(bytes);
        if (increment > 0) {
            output.add(generator.generate(new WindowUpdateFrame(0, increment)));
        }
    }

    public void resetStream(int streamId, ErrorCode code) {
        Http2Stream stream = requireStream(streamId);
        applyLocal(stream, StreamEvent.SEND_RST_STREAM);
        streams.forgetIfClosed(stream);
        streams.resetLocally(streamId);
        output.add(generator.generate(new RstStreamFrame(streamId, code)));
    }

    /**
     * {@link #resetStream}, for a stream we reset because of what the peer sent on it (a request
     * refused before its body ended): at the server it counts against the same rapid-reset limit
     * as the resets the peer's frames provoke, so refused streams cannot be used to make us reset
     * without bound.
     *
     * @return false when that passed the limit: the connection failed (GOAWAY(ENHANCE_YOUR_CALM)
     *         queued), and its owner closes the transport
     */
    public boolean resetRefusedStream(int streamId, ErrorCode code, long nowNanos) {
        resetStream(streamId, code);
        return countProvokedReset(nowNanos, new ArrayList<>(1));
    }

    public void ping(long opaqueData) {
        output.add(generator.generate(new PingFrame(opaqueData, false)));
    }

    /** Graceful (NO_ERROR: streams in flight finish) or not; no new peer streams are accepted. */
    public void goAway(ErrorCode code, String debug) {
        output.add(generator.generate(new GoAwayFrame(streams.lastPeerId(), code, debug)));
        state = state.next(code == ErrorCode.NO_ERROR ? ConnectionState.Event.GOAWAY_SENT
                : ConnectionState.Event.CONNECTION_ERROR);
    }

    /**
     * The owner's transport closed: from now on input is ignored and no stream opens. Its owner
     * reads {@link #state()} instead of keeping a copy of its own.
     */
    public void transportClosed() {
        state = state.next(ConnectionState.Event.TRANSPORT_CLOSED);
    }

    /** The stream's state; CLOSED for a stream that is gone, IDLE for one never opened. */
    public StreamState streamState(int streamId) {
        Http2Stream stream = streams.get(streamId);
        if (stream != null) {
            return stream.state();
        }
        return streams.isIdle(streamId) ? StreamState.IDLE : StreamState.CLOSED;
    }

    public int activeStreams() {
        return streams.activeInitiatedBy(true) + streams.activeInitiatedBy(false);
    }

    private Http2Stream requireStream(int streamId) {
        Http2Stream stream = streams.get(streamId);
        if (stream == null) {
            throw new IllegalStateException("no open stream " + streamId);
        }
        return stream;
    }

    private static void applyLocal(Http2Stream stream, StreamEvent event) {
        try {
            stream.apply(event);
        } catch (Http2Error e) {
            throw new IllegalStateException("send events never raise protocol errors", e);
        }
    }

    private interface Check {
        void run() throws StreamError;
    }

    private static void checkOutbound(Check check) {
        try {
            check.run();
        } catch (StreamError e) {
            throw invalidOutbound(e);
        }
    }

    private static IllegalArgumentException invalidOutbound(StreamError e) {
        return new IllegalArgumentException("invalid header list: " + e.reason(), e);
    }

    /** Whether a request's {@code :method} is HEAD; a loop, as it runs on every request. */
    private static boolean isHeadRequest(List<HeaderField> fields) {
        for (int i = 0; i < fields.size(); i++) {
            HeaderField f = fields.get(i);
            if (f.name().equals(":method") && f.value().equals("HEAD")) {
                return true;
            }
        }
        return false;
    }
}
