package io.ringkv.http.h1;

import java.nio.ByteBuffer;

/**
 * Body bytes, after transfer decoding. Never empty.
 *
 * @param data a read-only slice of the caller's input buffer (not a copy): valid only until the
 *             caller next compacts or reuses that buffer. Copy it, or hand over a fresh read
 *             buffer, if it must outlive that.
 */
public record BodyChunk(ByteBuffer data) implements H1Event, H1ResponseEvent {
}
