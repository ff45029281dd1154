package io.ringkv.node;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.LiveRangeCursor;
import io.ringkv.cluster.NotEnoughReplicas;
import io.ringkv.cluster.ReadOutcome;
import io.ringkv.cluster.ReplicationParams;
import io.ringkv.cluster.Ttl;
import io.ringkv.cluster.WriteOutcome;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import io.ringkv.cluster.CasCondition;
import io.ringkv.cluster.CasOutcome;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Semaphore;

/**
 * The public API's data layer on top of the cluster coordinator. A one-node cluster is the
 * single-node store: the coordinator then answers from the local replica only.
 *
 * <p>Threading: called on the server's handler executor; futures complete on whichever thread
 * delivered the deciding replica answer (or the coordinator's executor on a deadline).
 */
final class ClusterEntityService implements EntityService {
    private final Cluster cluster;
    private final StorageEngine localEngine;
    /** Cluster ranges open at once: each may hold a handler thread while it waits for the slowest peer. */
    private final Semaphore rangePermits;
    private final int rangeStreamsMax;

    ClusterEntityService(Cluster cluster, StorageEngine localEngine, int rangeStreamsMax) {
        this.cluster = cluster;
        this.localEngine = localEngine;
        this.rangeStreamsMax = rangeStreamsMax;
        this.rangePermits = new Semaphore(rangeStreamsMax);
    }

    @Override
    public CompletableFuture<Optional<Record>> get(byte[] key, ReplicationParams replicas) {
        return cluster.coordinator().get(key, replicas).thenApply(outcome -> switch (outcome) {
            case ReadOutcome.Found found -> Optional.of(found.record());
            case ReadOutcome.NotFound ignored -> Optional.<Record>empty();
            case NotEnoughReplicas failed -> throw notEnough(failed);
        });
    }

    @Override
    public CompletableFuture<Void> put(byte[] key, byte[] value, Optional<Ttl> ttl, ReplicationParams replicas) {
        CompletableFuture<WriteOutcome> write = ttl.isPresent()
                ? cluster.coordinator().put(key, value, ttl.get(), replicas)
                : cluster.coordinator().put(key, value, replicas);
        return write.thenApply(ClusterEntityService::acknowledged);
    }

    @Override
    public long expiryClockMillis() {
        return cluster.coordinator().expiryClockMillis();
    }

    @Override
    public CompletableFuture<Void> delete(byte[] key, ReplicationParams replicas) {
        return cluster.coordinator().delete(key, replicas).thenApply(ClusterEntityService::acknowledged);
    }

    @Override
    public CompletableFuture<CasOutcome> putIf(byte[] key, byte[] value, Optional<Ttl> ttl, CasCondition condition,
                                               ReplicationParams replicas) {
        return cluster.compareAndSet().write(key, condition, timestamp -> ttl.isPresent()
                ? Record.expiring(timestamp, value, ttl.get().expiresAtMillis(timestamp))
                : Record.value(timestamp, value), replicas);
    }

    @Override
    public CompletableFuture<CasOutcome> deleteIf(byte[] key, CasCondition condition, ReplicationParams replicas) {
        return cluster.compareAndSet().write(key, condition, Record::tombstone, replicas);
    }

    private static Void acknowledged(WriteOutcome outcome) {
        if (outcome instanceof NotEnoughReplicas failed) {
            throw notEnough(failed);
        }
        return null;
    }

    private static CompletionException notEnough(NotEnoughReplicas failed) {
        return new CompletionException(new NotEnoughReplicasException(failed.message()));
    }

    @Override
    public CompletableFuture<LiveRangeCursor> range(byte[] start, byte[] end, boolean localOnly) {
        if (localOnly || cluster.topology().size() == 1) {
            try {
                // The merge of this node's stream alone: tombstones and expired records dropped, as in a cluster.
                LiveRangeCursor local = cluster.range().openLocalOnly(start, end);
                return CompletableFuture.completedFuture(local);
            } catch (StoreException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        if (!rangePermits.tryAcquire()) {
            return CompletableFuture.failedFuture(new RangeBusyException(rangeStreamsMax));
        }
        return cluster.range().open(start, end)
                .<LiveRangeCursor>thenApply(merge -> new PermitReleasingCursor(merge, rangePermits))
                .whenComplete((source, error) -> {
                    if (error != null) {
                        rangePermits.release();
                    }
                });
    }

    @Override
    public int clusterSize() {
        return cluster.topology().size();
    }

    @Override
    public int replicationFactor() {
        return cluster.replicationFactor().current();
    }
}
