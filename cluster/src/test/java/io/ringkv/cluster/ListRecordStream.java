package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.List;
import java.util.Map;

/** Entries from a list, in the order given (tests give them sorted). Records whether it was closed. */
final class ListRecordStream implements RecordStream {
    private final List<Map.Entry<byte[], Record>> entries;
    private int index = -1;
    private boolean closed;

    ListRecordStream(List<Map.Entry<byte[], Record>> entries) {
        this.entries = entries;
    }

    boolean closed() {
        return closed;
    }

    @Override
    public boolean next() {
        index++;
        return index < entries.size();
    }

    @Override
    public byte[] key() {
        return entries.get(index).getKey();
    }

    @Override
    public Record record() {
        return entries.get(index).getValue();
    }

    @Override
    public void close() {
        closed = true;
    }
}
