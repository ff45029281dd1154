package io.ringkv.cluster;

import io.ringkv.store.RangeCursor;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Opens a cluster-wide range for the public {@code GET /v0/entities}: this node's cursor plus
 * every other node's internal range stream, merged by {@link ClusterRangeMerge}.
 *
 * <p>Every node is asked (not only a key's replicas: a range spans all keys, and each node holds
 * a different subset). Each node's share counts only for the keys it owns under the replication
 * factor ({@link OwnedRecordStream}, filtered here as the streams arrive): a key is read from its
 * owners, and a copy beyond them is ignored. If any node cannot be reached, the range is refused rather than served
 * incomplete: the future fails with a {@link ReplicaException} (the node answers {@code 504}).
 *
 * <p>Threading: immutable, thread-safe. {@link #open} reads nothing but the response heads; the
 * bodies are pulled by the returned source on the server's handler executor.
 */
public final class ClusterRange {

    private final ClusterNodes topology;
    private final StorageEngine local;
    private final ReplicaClient client;
    private final LongSupplier nowMillis;
    private final IntSupplier replicationFactor;

    /** @param nowMillis the time the merges judge expiry by ({@link Coordinator#expiryClockMillis}) */
    public ClusterRange(ClusterNodes topology, StorageEngine local, ReplicaClient client, LongSupplier nowMillis) {
        this(topology, local, client, nowMillis, topology::size);
    }

    /** @param replicationFactor how many nodes own each key now ({@link ReplicationFactor#current}), read per range */
    public ClusterRange(ClusterNodes topology, StorageEngine local, ReplicaClient client, LongSupplier nowMillis,
                        IntSupplier replicationFactor) {
        this.topology = topology;
        this.local = local;
        this.client = client;
        this.nowMillis = nowMillis;
        this.replicationFactor = replicationFactor;
    }

    /**
     * @param start inclusive lower bound
     * @param end   exclusive upper bound, or null for "to the last key"
     * @return completes with the merge once every node answered with its response head; the
     *         caller owns the merge and must close it (the server closes a streamed body)
     */
    public CompletableFuture<ClusterRangeMerge> open(byte[] start, byte[] end) {
        // The owners of this moment: a joining node is not asked (it may not hold its keys yet), a
        // leaving one is (it still does).
        RendezvousPlacement placement = topology.placement();
        int rf = Math.min(replicationFactor.getAsInt(), placement.clusterSize());
        List<CompletableFuture<RecordStream>> opening = new ArrayList<>(placement.clusterSize());
        for (ClusterNode node : placement.nodes()) {
            if (topology.isSelf(node)) {
                continue;
            }
            opening.add(client.openRange(node, start, end).<RecordStream>thenApply(stream -> owned(placement, stream, node, rf))
                    .exceptionallyCompose(e -> CompletableFuture.failedFuture(new ReplicaException(node, "range unavailable", e))));
        }
        if (placement.contains(topology.self())) {
            opening.add(openLocal(start, end).thenApply(stream -> owned(placement, stream, topology.self(), rf)));
        }
        return CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new))
                .handle((ignored, error) -> {
                    if (error != null) {
                        closeOpened(opening);
                        throw error instanceof CompletionException ce
                                ? ce : new CompletionException(error);
                    }
                    return new ClusterRangeMerge(opening.stream().map(CompletableFuture::join).toList(), nowMillis);
                });
    }

    /**
     * This node's own records alone, as the public range shows them (tombstones and expired records
     * left out): a one-node cluster's range, or {@code local=true}. Repairs nothing, asks nobody.
     */
    public ClusterRangeMerge openLocalOnly(byte[] start, byte[] end) throws StoreException {
        return new ClusterRangeMerge(List.of(new LocalRecordStream(local.range(start, end))), nowMillis);
    }

    /** {@code stream} as far as {@code node} owns its keys; all of it when every node owns every key. */
    private static RecordStream owned(RendezvousPlacement placement, RecordStream stream, ClusterNode node, int rf) {
        return rf >= placement.clusterSize() ? stream : new OwnedRecordStream(stream, placement, node, rf);
    }

    private CompletableFuture<RecordStream> openLocal(byte[] start, byte[] end) {
        try {
            RangeCursor cursor = local.range(start, end);
            return CompletableFuture.completedFuture(new LocalRecordStream(cursor));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void closeOpened(List<CompletableFuture<RecordStream>> opening) {
        for (CompletableFuture<RecordStream> stream : opening) {
            if (stream.isDone() && !stream.isCompletedExceptionally()) {
                stream.join().close();
            }
        }
    }
}
