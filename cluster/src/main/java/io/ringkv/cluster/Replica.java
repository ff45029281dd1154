package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * One copy of the data as the coordinator sees it: the local storage engine or a remote node.
 *
 * <p>Contract for implementations: never throw; report every failure (storage error, timeout,
 * refused connection, 5xx) by completing the future exceptionally, and complete every future
 * within a bounded time (a remote replica's request timeout). A replica that is local may
 * complete before returning; the coordinator relies on neither behaviour.
 */
public interface Replica {

    ClusterNode node();

    /** The stored record for {@code key}, tombstones included, or empty when there is none. */
    CompletableFuture<Optional<Record>> read(byte[] key);

    /**
     * Stores {@code record} unless the replica holds a fresher one for {@code key}, and says which:
     * completes with empty when the replica now holds {@code record} (or already did), or with the
     * timestamp of the fresher record it keeps instead. A repair does not care which; a client's
     * new write does, because a fresher record there may be a write acknowledged before this one
     * was stamped, by a clock ahead of this coordinator's ({@link Coordinator} stamps it again).
     */
    CompletableFuture<OptionalLong> write(byte[] key, Record record);

    /**
     * As {@link #write(byte[], Record)}, for a write whose replicas were chosen by the membership
     * view of metadata epoch {@code routedAt}: a remote replica's request says so, so that a node
     * that knows a newer view drops a copy it no longer owns ({@link Cleanup#storedFrom}).
     */
    default CompletableFuture<OptionalLong> write(byte[] key, Record record, long routedAt) {
        return write(key, record);
    }
}
