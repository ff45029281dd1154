package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * A local scan read at the node's anti-entropy pace ({@link ScanPacer}): the versions a peer asks
 * for in its round. Threading: as the stream it wraps (one reader at a time, which may block).
 */
final class PacedRecordStream implements RecordStream {
    private final RecordStream scan;
    private final ScanPacer pacer;
    private int sincePace;

    PacedRecordStream(RecordStream scan, ScanPacer pacer) {
        this.scan = scan;
        this.pacer = pacer;
    }

    @Override
    public boolean next() throws IOException {
        if (++sincePace == ScanPacer.BATCH) {
            sincePace = 0;
            try {
                pacer.scanned(ScanPacer.BATCH);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while pacing an anti-entropy scan");
            }
        }
        return scan.next();
    }

    @Override
    public byte[] key() {
        return scan.key();
    }

    @Override
    public Record record() {
        return scan.record();
    }

    @Override
    public void close() {
        scan.close();
    }
}
