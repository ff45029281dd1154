package io.ringkv.cluster;

import io.ringkv.store.Record;

/**
 * Told of every replica that did not acknowledge a write, on the thread that saw the failure and
 * before the failure is counted ({@link HintedHandoff} keeps a hint). Must not throw or block for
 * long: it runs on the inter-node client's threads.
 */
@FunctionalInterface
public interface MissedWriteListener {

    MissedWriteListener NONE = (node, key, record) -> { };

    void missed(ClusterNode node, byte[] key, Record record);
}
