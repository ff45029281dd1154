package io.ringkv.node;

import io.ringkv.cluster.LiveRangeCursor;
import io.ringkv.cluster.ReplicationParams;
import io.ringkv.cluster.Ttl;
import io.ringkv.store.Record;
import io.ringkv.cluster.CasCondition;
import io.ringkv.cluster.CasOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What the public API needs from the data layer, in the API's own terms. One implementation
 * serves a single node straight from its store; the cluster implementation coordinates replicas.
 *
 * <p>Threading: called on the server's handler executor. Implementations may block briefly
 * (a local storage read) and return a completed future, or complete later from any thread.
 * Failures complete the future exceptionally with {@link NotEnoughReplicasException} (→ 504),
 * {@link io.ringkv.store.StoreException} (→ 500) or another exception (→ 500).
 */
public interface EntityService {

    /**
     * The freshest record the replicas asked returned, or empty when the key is absent, deleted or
     * expired (by {@link #expiryClockMillis()} when the read was decided). Never a tombstone; its
     * timestamp names the version (the answer's {@code ETag}).
     */
    CompletableFuture<Optional<Record>> get(byte[] key, ReplicationParams replicas);

    /** @param ttl how long the value stays readable after the write; empty: for ever */
    CompletableFuture<Void> put(byte[] key, byte[] value, Optional<Ttl> ttl, ReplicationParams replicas);

    CompletableFuture<Void> delete(byte[] key, ReplicationParams replicas);

    /**
     * Stores the value if {@code condition} holds for the key's current record, as one linearizable
     * compare-and-set among the key's replicas ({@link io.ringkv.cluster.CompareAndSet}).
     */
    CompletableFuture<CasOutcome> putIf(byte[] key, byte[] value, Optional<Ttl> ttl, CasCondition condition,
                                        ReplicationParams replicas);

    /** Deletes the key if {@code condition} holds for its current record, as {@link #putIf} stores. */
    CompletableFuture<CasOutcome> deleteIf(byte[] key, CasCondition condition, ReplicationParams replicas);

    /**
     * Live records with {@code start <= key < end} ({@code end == null}: to the last key) in key
     * order, each key once with its freshest value. Memory use does not depend on the range.
     *
     * @param localOnly true to read only this node's store (the single-node behaviour)
     * @return completes once every node that takes part has started answering; fails with
     *         {@link NotEnoughReplicasException} when one of them cannot. The caller closes the cursor.
     */
    CompletableFuture<LiveRangeCursor> range(byte[] start, byte[] end, boolean localOnly);

    /** The time this node judges expiry by, epoch millis ({@link io.ringkv.cluster.Coordinator#expiryClockMillis}). */
    long expiryClockMillis();

    /** The number of nodes, for validation of {@code replicas}. */
    int clusterSize();

    /** How many nodes own each key now: the default {@code replicas} is a majority of it. */
    int replicationFactor();
}
