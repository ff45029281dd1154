package io.ringkv.http.h1;

import java.nio.ByteBuffer;

/** Cuts body bytes out of an input buffer as read-only slices, never copies. Stateless. */
final class BodySlices {
    private BodySlices() {
    }

    /** @return up to {@code max} bytes of {@code in} as a chunk (advancing {@code in}), or null if none are available */
    static BodyChunk take(ByteBuffer in, long max) {
        int count = (int) Math.min(in.remaining(), max);
        if (count == 0) {
            return null;
        }
        ByteBuffer slice = in.slice(in.position(), count).asReadOnlyBuffer();
        in.position(in.position() + count);
        return new BodyChunk(slice);
    }
}
