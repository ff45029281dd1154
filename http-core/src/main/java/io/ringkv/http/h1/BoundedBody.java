package io.ringkv.http.h1;

import java.nio.ByteBuffer;

/**
 * The bytes left of a body with a known bound: the exact length a Content-Length announced, or
 * the size limit of a response body read until the connection closes. Hands out slices of the
 * input (see {@link BodySlices}), never more than the bytes left.
 *
 * <p>Threading: confined to the owning parser.
 */
final class BoundedBody {
    private long remaining;

    /** Starts a body of at most {@code bytes} bytes. */
    void start(long bytes) {
        remaining = bytes;
    }

    /** @return the next slice of the body from {@code in} (advancing it), or null if none is available */
    BodyChunk take(ByteBuffer in) {
        BodyChunk chunk = BodySlices.take(in, remaining);
        if (chunk != null) {
            remaining -= chunk.data().remaining();
        }
        return chunk;
    }

    /** True when every byte of the bound has been handed out. */
    boolean exhausted() {
        return remaining == 0;
    }
}
