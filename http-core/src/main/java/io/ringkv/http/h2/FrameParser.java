package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/**
 * Splits a byte stream into HTTP/2 frames, RFC 9113 §4. Resumes anywhere: give it whatever
 * bytes arrived and call {@link #next} until it returns null, then call again when more arrive.
 *
 * <p>Checks done here, before any payload is buffered: the length against our
 * SETTINGS_MAX_FRAME_SIZE (§4.2), and that a field block's CONTINUATION frames follow it with
 * nothing interleaved (§6.10). Per-type payload rules live in the {@code *FrameParser} classes.
 * Unknown frame types are skipped (§4.1, §5.5), except inside a field block.
 *
 * <p>After a {@link StreamError} the parser is positioned at the next frame and may be used
 * again; after a {@link ConnectionError} it must be discarded.
 *
 * <p>Payloads that arrive whole are returned as slices of the input buffer (no copy); payloads
 * that arrive in pieces are gathered into a fresh array of exactly the frame's length, except an
 * unpadded DATA frame's, which is returned piece by piece as its bytes arrive (each a slice, see
 * {@link #readDataPiece}).
 *
 * <p>Threading: confined to the connection's reading thread.
 */
public final class FrameParser {
    public static final int DEFAULT_MAX_FRAME_SIZE = SettingsFrameParser.MIN_MAX_FRAME_SIZE;

    private enum State { PREFACE, HEADER, PAYLOAD, SKIP }

    private final byte[] headerBytes = new byte[FrameHeader.BYTES];
    private State state;
    private int prefaceMatched;
    private int headerFilled;
    private FrameHeader header;
    private byte[] payload;
    private int payloadFilled;
    private int skipRemaining;
    private int maxFrameSize = DEFAULT_MAX_FRAME_SIZE;
    /** The stream whose field block awaits CONTINUATION frames, or 0. */
    private int continuationStreamId;

    private FrameParser(boolean expectPreface) {
        this.state = expectPreface ? State.PREFACE : State.HEADER;
    }

    /** A parser for the server side: the client preface comes first. */
    public static FrameParser forServer() {
        return new FrameParser(true);
    }

    /** A parser for the client side: frames from the first byte. */
    public static FrameParser forClient() {
        return new FrameParser(false);
    }

    /** Our advertised SETTINGS_MAX_FRAME_SIZE, applied once the peer has acknowledged it. */
    public void maxFrameSize(int bytes) {
        if (bytes < SettingsFrameParser.MIN_MAX_FRAME_SIZE || bytes > SettingsFrameParser.MAX_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("max frame size out of range: " + bytes);
        }
        this.maxFrameSize = bytes;
    }

    /** True while a field block is open and only CONTINUATION for it may follow. */
    public boolean inFieldBlock() {
        return continuationStreamId != 0;
    }

    /** The next complete frame, or null when {@code input} is exhausted first. */
    public Frame next(ByteBuffer input) throws Http2Error {
        while (input.hasRemaining()) {
            Frame frame = switch (state) {
                case PREFACE -> readPreface(input);
                case HEADER -> readHeader(input);
                case PAYLOAD -> readPayload(input);
                case SKIP -> skip(input);
            };
            if (frame != null) {
                return frame;
            }
        }
        return null;
    }

    private Frame readPreface(ByteBuffer input) throws ConnectionError {
        while (input.hasRemaining() && prefaceMatched < Preface.LENGTH) {
            if (input.get() != Preface.at(prefaceMatched++)) {
                throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "bad_preface");
            }
        }
        if (prefaceMatched == Preface.LENGTH) {
            state = State.HEADER;
        }
        return null;
    }

    private Frame readHeader(ByteBuffer input) throws Http2Error {
        int take = Math.min(FrameHeader.BYTES - headerFilled, input.remaining());
        input.get(headerBytes, headerFilled, take);
        headerFilled += take;
        if (headerFilled < FrameHeader.BYTES) {
            return null;
        }
        headerFilled = 0;
        header = decodeHeader(headerBytes);
        checkHeader(header);
        if (FrameType.of(header.type()) == null) {
            skipRemaining = header.length();
            state = State.SKIP;
        } else {
            state = State.PAYLOAD;
            payload = null;
            payloadFilled = 0;
        }
        // A frame with an empty payload is complete as soon as its header is.
        return header.length() == 0 && state == State.PAYLOAD ? readPayload(input) : null;
    }

    private static FrameHeader decodeHeader(byte[] b) {
        int length = (b[0] & 0xff) << 16 | (b[1] & 0xff) << 8 | (b[2] & 0xff);
        // RFC 9113 §4.1: the reserved bit is ignored on receipt.
        int streamId = ((b[5] & 0x7f) << 24 | (b[6] & 0xff) << 16 | (b[7] & 0xff) << 8 | (b[8] & 0xff));
        return new FrameHeader(length, b[3] & 0xff, b[4] & 0xff, streamId);
    }

    private void checkHeader(FrameHeader h) throws ConnectionError {
        // RFC 9113 §4.2: checked before buffering; treated as a connection error for every type.
        if (h.length() > maxFrameSize) {
            throw new ConnectionError(ErrorCode.FRAME_SIZE_ERROR, "frame_too_large");
        }
        boolean continuation = h.type() == FrameType.CONTINUATION.code;
        // RFC 9113 §6.10: nothing may interleave a field block, not even unknown frame types.
        if (continuationStreamId != 0 && (!continuation || h.streamId() != continuationStreamId)) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "continuation_expected");
        }
        if (continuation && continuationStreamId == 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "unexpected_continuation");
        }
    }

    private Frame readPayload(ByteBuffer input) throws Http2Error {
        if (header.type() == FrameType.DATA.code && !header.has(Flags.PADDED)) {
            return readDataPiece(input);
        }
        int length = header.length();
        ByteBuffer body;
        if (payload == null && input.remaining() >= length) {
            body = input.slice(input.position(), length);
            input.position(input.position() + length);
        } else {
            if (payload == null) {
                payload = new byte[length];
            }
            int take = Math.min(length - payloadFilled, input.remaining());
            input.get(payload, payloadFilled, take);
            payloadFilled += take;
            if (payloadFilled < length) {
                return null;
            }
            body = ByteBuffer.wrap(payload);
        }
        payload = null;
        state = State.HEADER;
        return parseBody(header, body);
    }

    /**
     * An unpadded DATA frame is handed on as its bytes arrive, each piece a slice of the input,
     * never gathered into an array: one frame cut by the end of a read (over TLS a 16 KiB frame
     * spans two records, so nearly every one) costs no copy. Flow control and body length count
     * bytes, so the pieces add up to the frame; END_STREAM goes with the last piece only. A piece
     * is as valid as a DATA frame of its size, so the connection treats it as one.
     */
    private Frame readDataPiece(ByteBuffer input) throws Http2Error {
        if (header.streamId() == 0) {
            throw new ConnectionError(ErrorCode.PROTOCOL_ERROR, "data_on_stream_zero");
        }
        int left = header.length() - payloadFilled;
        int take = Math.min(left, input.remaining());
        if (take == 0 && left > 0) {
            return null;
        }
        ByteBuffer piece = input.slice(input.position(), take);
        input.position(input.position() + take);
        payloadFilled += take;
        boolean last = payloadFilled == header.length();
        if (last) {
            payloadFilled = 0;
            state = State.HEADER;
        }
        return new DataFrame(header.streamId(), piece, last && header.has(Flags.END_STREAM));
    }

    private Frame skip(ByteBuffer input) {
        int take = Math.min(skipRemaining, input.remaining());
        input.position(input.position() + take);
        skipRemaining -= take;
        if (skipRemaining == 0) {
            state = State.HEADER;
        }
        return null;
    }

    private Frame parseBody(FrameHeader h, ByteBuffer body) throws Http2Error {
        Frame frame = switch (FrameType.of(h.type())) {
            case DATA -> DataFrameParser.parse(h, body);
            case HEADERS -> HeadersFrameParser.parse(h, body);
            case PRIORITY -> PriorityFrameParser.parse(h, body);
            case RST_STREAM -> RstStreamFrameParser.parse(h, body);
            case SETTINGS -> SettingsFrameParser.parse(h, body);
            case PUSH_PROMISE -> PushPromiseFrameParser.parse(h, body);
            case PING -> PingFrameParser.parse(h, body);
            case GOAWAY -> GoAwayFrameParser.parse(h, body);
            case WINDOW_UPDATE -> WindowUpdateFrameParser.parse(h, body);
            case CONTINUATION -> ContinuationFrameParser.parse(h, body);
        };
        trackFieldBlock(h);
        return frame;
    }

    private void trackFieldBlock(FrameHeader h) {
        int type = h.type();
        boolean opensBlock = type == FrameType.HEADERS.code || type == FrameType.PUSH_PROMISE.code;
        if (opensBlock || type == FrameType.CONTINUATION.code) {
            continuationStreamId = h.has(Flags.END_HEADERS) ? 0 : h.streamId();
        }
    }
}
