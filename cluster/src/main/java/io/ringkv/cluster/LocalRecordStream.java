package io.ringkv.cluster;

import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StoreException;
import java.io.IOException;

/** This node's share of a range, straight from the storage engine's cursor. Same threading as the cursor. */
public final class LocalRecordStream implements RecordStream {

    private final RangeCursor cursor;

    public LocalRecordStream(RangeCursor cursor) {
        this.cursor = cursor;
    }

    @Override
    public boolean next() throws IOException {
        try {
            return cursor.next();
        } catch (StoreException e) {
            throw new IOException("local range read failed", e);
        }
    }

    @Override
    public byte[] key() {
        return cursor.key();
    }

    @Override
    public Record record() {
        return cursor.record();
    }

    @Override
    public void close() {
        cursor.close();
    }
}
