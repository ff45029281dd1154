package io.ringkv.node;

import io.ringkv.cluster.LiveRangeCursor;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/** A range cursor that gives its permit back when it is closed (once, however often close is called). */
final class PermitReleasingCursor implements LiveRangeCursor {
    private final LiveRangeCursor cursor;
    private final Semaphore permits;
    private final AtomicBoolean released = new AtomicBoolean();

    PermitReleasingCursor(LiveRangeCursor cursor, Semaphore permits) {
        this.cursor = cursor;
        this.permits = permits;
    }

    @Override
    public boolean advance() throws IOException {
        return cursor.advance();
    }

    @Override
    public byte[] key() {
        return cursor.key();
    }

    @Override
    public byte[] value() {
        return cursor.value();
    }

    @Override
    public void close() {
        try {
            cursor.close();
        } finally {
            if (released.compareAndSet(false, true)) {
                permits.release();
            }
        }
    }
}
