package io.ringkv.http.h2;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Writes frames, RFC 9113 §4 and §6. Each method returns a fresh heap buffer, flipped and
 * ready to write. No pooling: frames are small and short-lived, and the caller owns the
 * returned buffer outright.
 *
 * <p>Frames never exceed the peer's SETTINGS_MAX_FRAME_SIZE ({@link #maxFrameSize(int)}):
 * {@link #headers} and {@link #pushPromise} split a field block into CONTINUATION frames;
 * a DATA frame larger than the limit is a caller bug ({@link IllegalArgumentException}).
 *
 * <p>Threading: not thread-safe; used under the connection's write critical section.
 */
public final class FrameGenerator {
    private int maxFrameSize = FrameParser.DEFAULT_MAX_FRAME_SIZE;

    /** A generator for the protocol's default maximum frame size (16,384 octets) until told otherwise. */
    public FrameGenerator() {
    }

    /** The peer's SETTINGS_MAX_FRAME_SIZE. */
    public void maxFrameSize(int bytes) {
        if (bytes < SettingsFrameParser.MIN_MAX_FRAME_SIZE || bytes > SettingsFrameParser.MAX_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("max frame size out of range: " + bytes);
        }
        this.maxFrameSize = bytes;
    }

    public int maxFrameSize() {
        return maxFrameSize;
    }

    /** Writes exactly one frame as described. */
    public ByteBuffer generate(Frame frame) {
        return switch (frame) {
            case DataFrame f -> data(f);
            case HeadersFrame f -> headersFrame(f);
            case PriorityFrame f -> priority(f);
            case RstStreamFrame f -> rstStream(f);
            case SettingsFrame f -> settings(f);
            case PushPromiseFrame f -> pushPromiseFrame(f);
            case PingFrame f -> ping(f);
            case GoAwayFrame f -> goAway(f);
            case WindowUpdateFrame f -> windowUpdate(f);
            case ContinuationFrame f -> continuation(f);
        };
    }

    /**
     * A whole field block: one HEADERS frame, then as many CONTINUATION frames as the peer's
     * max frame size needs, all in one buffer so that nothing can interleave them (§6.10).
     * The block is copied before this returns, so the caller may reuse its buffer.
     */
    public ByteBuffer headers(int streamId, ByteBuffer block, boolean endStream, Priority priority) {
        int fixed = priority == null ? 0 : 5;
        int first = Math.min(block.remaining(), maxFrameSize - fixed);
        ByteBuffer out = ByteBuffer.allocate(fieldBlockBytes(block.remaining(), fixed));
        int flags = (endStream ? Flags.END_STREAM : 0) | (priority == null ? 0 : Flags.PRIORITY)
                | (first == block.remaining() ? Flags.END_HEADERS : 0);
        writeHeader(out, first + fixed, FrameType.HEADERS, flags, streamId);
        if (priority != null) {
            writePriority(out, priority);
        }
        writeContinuations(out, streamId, copy(out, block, first));
        return out.flip();
    }

    /** A whole PUSH_PROMISE field block, split like {@link #headers}. */
    public ByteBuffer pushPromise(int streamId, int promisedStreamId, ByteBuffer block) {
        int first = Math.min(block.remaining(), maxFrameSize - 4);
        ByteBuffer out = ByteBuffer.allocate(fieldBlockBytes(block.remaining(), 4));
        int flags = first == block.remaining() ? Flags.END_HEADERS : 0;
        writeHeader(out, first + 4, FrameType.PUSH_PROMISE, flags, streamId);
        out.putInt(promisedStreamId & 0x7fffffff);
        writeContinuations(out, streamId, copy(out, block, first));
        return out.flip();
    }

    private int fieldBlockBytes(int blockBytes, int fixed) {
        int first = Math.min(blockBytes, maxFrameSize - fixed);
        int rest = blockBytes - first;
        int continuations = (rest + maxFrameSize - 1) / maxFrameSize;
        return FrameHeader.BYTES + fixed + blockBytes + continuations * FrameHeader.BYTES;
    }

    private void writeContinuations(ByteBuffer out, int streamId, ByteBuffer rest) {
        while (rest.hasRemaining()) {
            int n = Math.min(rest.remaining(), maxFrameSize);
            int flags = n == rest.remaining() ? Flags.END_HEADERS : 0;
            writeHeader(out, n, FrameType.CONTINUATION, flags, streamId);
            copy(out, rest, n);
        }
    }

    /** Copies {@code n} bytes of {@code from} (advancing it) and returns {@code from}. */
    private static ByteBuffer copy(ByteBuffer out, ByteBuffer from, int n) {
        out.put(out.position(), from, from.position(), n);
        out.position(out.position() + n);
        from.position(from.position() + n);
        return from;
    }

    private ByteBuffer data(DataFrame f) {
        int flags = (f.endStream() ? Flags.END_STREAM : 0);
        return padded(FrameType.DATA, flags, f.streamId(), f.padLength(), 0, f.data(), null);
    }

    private ByteBuffer headersFrame(HeadersFrame f) {
        int flags = (f.endStream() ? Flags.END_STREAM : 0) | (f.endHeaders() ? Flags.END_HEADERS : 0)
                | (f.priority() != null ? Flags.PRIORITY : 0);
        int fixed = f.priority() != null ? 5 : 0;
        return padded(FrameType.HEADERS, flags, f.streamId(), f.padLength(), fixed, f.fragment(),
                f.priority() == null ? null : out -> writePriority(out, f.priority()));
    }

    private ByteBuffer pushPromiseFrame(PushPromiseFrame f) {
        int flags = f.endHeaders() ? Flags.END_HEADERS : 0;
        return padded(FrameType.PUSH_PROMISE, flags, f.streamId(), f.padLength(), 4, f.fragment(),
                out -> out.putInt(f.promisedStreamId() & 0x7fffffff));
    }

    /** Layout shared by DATA, HEADERS, PUSH_PROMISE: [pad length] fixed fields, content, padding. */
    private ByteBuffer padded(FrameType type, int flags, int streamId, int padLength, int fixed,
                              ByteBuffer content, java.util.function.Consumer<ByteBuffer> writeFixed) {
        boolean isPadded = padLength != Frame.UNPADDED;
        if (isPadded && (padLength < 0 || padLength > 255)) {
            throw new IllegalArgumentException("pad length must be 0..255: " + padLength);
        }
        int length = (isPadded ? 1 + padLength : 0) + fixed + content.remaining();
        ByteBuffer out = frame(type, isPadded ? flags | Flags.PADDED : flags, streamId, length);
        if (isPadded) {
            out.put((byte) padLength);
        }
        if (writeFixed != null) {
            writeFixed.accept(out);
        }
        out.put(content.duplicate());
        // RFC 9113 §6.1: padding octets MUST be zero; a fresh heap buffer already is.
        out.position(out.position() + (isPadded ? padLength : 0));
        return out.flip();
    }

    private ByteBuffer priority(PriorityFrame f) {
        ByteBuffer out = frame(FrameType.PRIORITY, 0, f.streamId(), 5);
        writePriority(out, f.priority());
        return out.flip();
    }

    private static void writePriority(ByteBuffer out, Priority p) {
        out.putInt((p.streamDependency() & 0x7fffffff) | (p.exclusive() ? 0x80000000 : 0));
        out.put((byte) (p.weight() - 1));
    }

    private ByteBuffer rstStream(RstStreamFrame f) {
        return frame(FrameType.RST_STREAM, 0, f.streamId(), 4).putInt(f.errorCode()).flip();
    }

    private ByteBuffer settings(SettingsFrame f) {
        ByteBuffer out = frame(FrameType.SETTINGS, f.ack() ? Flags.ACK : 0, 0, f.settings().size() * 6);
        for (SettingsFrame.Setting s : f.settings()) {
            out.putShort((short) s.id()).putInt((int) s.value());
        }
        return out.flip();
    }

    private ByteBuffer ping(PingFrame f) {
        return frame(FrameType.PING, f.ack() ? Flags.ACK : 0, 0, 8).putLong(f.opaqueData()).flip();
    }

    private ByteBuffer goAway(GoAwayFrame f) {
        ByteBuffer out = frame(FrameType.GOAWAY, 0, 0, 8 + f.debugData().remaining());
        out.putInt(f.lastStreamId() & 0x7fffffff).putInt(f.errorCode()).put(f.debugData().duplicate());
        return out.flip();
    }

    private ByteBuffer windowUpdate(WindowUpdateFrame f) {
        return frame(FrameType.WINDOW_UPDATE, 0, f.streamId(), 4).putInt(f.increment() & 0x7fffffff).flip();
    }

    private ByteBuffer continuation(ContinuationFrame f) {
        int flags = f.endHeaders() ? Flags.END_HEADERS : 0;
        return padded(FrameType.CONTINUATION, flags, f.streamId(), Frame.UNPADDED, 0, f.fragment(), null);
    }

    private ByteBuffer frame(FrameType type, int flags, int streamId, int length) {
        if (length > maxFrameSize) {
            throw new IllegalArgumentException(type + " payload " + length + " exceeds max frame size " + maxFrameSize);
        }
        ByteBuffer out = ByteBuffer.allocate(FrameHeader.BYTES + length);
        writeHeader(out, length, type, flags, streamId);
        return out;
    }

    /**
     * The 9-byte header of an unpadded DATA frame whose {@code length} payload bytes follow in a
     * buffer of their own: a sender writes both with one gathering write instead of copying the
     * payload behind the header.
     */
    public ByteBuffer dataHeader(int streamId, int length, boolean endStream) {
        if (length > maxFrameSize) {
            throw new IllegalArgumentException("DATA payload " + length + " exceeds max frame size " + maxFrameSize);
        }
        ByteBuffer out = ByteBuffer.allocate(FrameHeader.BYTES);
        writeHeader(out, length, FrameType.DATA, endStream ? Flags.END_STREAM : 0, streamId);
        return out.flip();
    }

    private static void writeHeader(ByteBuffer out, int length, FrameType type, int flags, int streamId) {
        Objects.requireNonNull(type);
        out.put((byte) (length >>> 16)).put((byte) (length >>> 8)).put((byte) length);
        out.put((byte) type.code).put((byte) flags).putInt(streamId & 0x7fffffff);
    }
}
