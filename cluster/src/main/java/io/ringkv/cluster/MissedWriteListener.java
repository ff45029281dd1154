package io.ringkv.cluster;

import io.ringkv.store.Record;

/**
 * Told of every replica that did not acknowledge a write, before the failure is counted
 * ({@link HintedHandoff} keeps a hint, a storage write). Never on an event loop's thread: a
 * failure the network reports is moved to the coordinator's executor first. Must not throw.
 */
@FunctionalInterface
public interface MissedWriteListener {

    MissedWriteListener NONE = (node, key, record) -> { };

    void missed(ClusterNode node, byte[] key, Record record);
}
