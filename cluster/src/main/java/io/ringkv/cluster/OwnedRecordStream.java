package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.io.IOException;

/**
 * One node's share of a cluster range, restricted to the keys that node owns (it is among the
 * key's first {@code rf} nodes): a copy held beyond a key's owners (written with an explicit
 * {@code from} larger than the factor) is not maintained by anti-entropy, so the range must not
 * let it stand for the key. Each key's owners together still give the key once, with its newest
 * version, in the merge. Threading: as {@link RecordStream}.
 */
final class OwnedRecordStream implements RecordStream {

    private final RecordStream records;
    private final RendezvousPlacement placement;
    private final ClusterNode node;
    private final int rf;

    OwnedRecordStream(RecordStream records, RendezvousPlacement placement, ClusterNode node, int rf) {
        this.records = records;
        this.placement = placement;
        this.node = node;
        this.rf = rf;
    }

    @Override
    public boolean next() throws IOException {
        while (records.next()) {
            if (placement.owns(records.key(), node, rf)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public byte[] key() {
        return records.key();
    }

    @Override
    public Record record() {
        return records.record();
    }

    @Override
    public void close() {
        records.close();
    }
}
