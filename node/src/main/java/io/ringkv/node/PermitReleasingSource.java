package io.ringkv.node;

import io.ringkv.http.server.ChunkSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/** A chunk source that gives its permit back when it is closed (once, however often close is called). */
final class PermitReleasingSource implements ChunkSource {
    private final ChunkSource source;
    private final Semaphore permits;
    private final AtomicBoolean released = new AtomicBoolean();

    PermitReleasingSource(ChunkSource source, Semaphore permits) {
        this.source = source;
        this.permits = permits;
    }

    @Override
    public ByteBuffer next() throws IOException {
        return source.next();
    }

    @Override
    public void close() {
        try {
            source.close();
        } finally {
            if (released.compareAndSet(false, true)) {
                permits.release();
            }
        }
    }
}
