package io.ringkv.http.h2;

import java.nio.ByteBuffer;

/**
 * Joins a HEADERS or PUSH_PROMISE fragment with its CONTINUATION frames into one field block
 * (RFC 9113 §4.3), counting frames and octets against the abuse limits as they arrive. The
 * parser already guarantees that nothing interleaves (§6.10).
 *
 * <p>Threading: confined to the connection's reading side.
 */
final class FieldBlockAssembler {
    /** A complete block and what the opening frame said about it. */
    record Block(Frame opening, ByteBuffer fragment) {
    }

    private final AbuseGuard guard;
    private Frame opening;
    private ByteBuffer joined;
    private int continuations;

    FieldBlockAssembler(AbuseGuard guard) {
        this.guard = guard;
    }

    /** Starts a block whose opening frame lacks END_HEADERS. */
    void start(Frame openingFrame, ByteBuffer fragment) throws ConnectionError {
        guard.onContinuation(0, fragment.remaining());
        opening = openingFrame;
        joined = ByteBuffer.allocate(Math.max(256, fragment.remaining() * 2));
        joined.put(fragment.duplicate());
        continuations = 0;
    }

    /** Adds a CONTINUATION; returns the complete block on END_HEADERS, else null. */
    Block append(ContinuationFrame frame) throws ConnectionError {
        continuations++;
        guard.onContinuation(continuations, joined.position() + frame.fragment().remaining());
        if (joined.remaining() < frame.fragment().remaining()) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(joined.capacity() * 2,
                    joined.position() + frame.fragment().remaining()));
            joined.flip();
            bigger.put(joined);
            joined = bigger;
        }
        joined.put(frame.fragment().duplicate());
        if (!frame.endHeaders()) {
            return null;
        }
        Block block = new Block(opening, joined.flip());
        opening = null;
        joined = null;
        return block;
    }
}
