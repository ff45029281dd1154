package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What every node holds for one key, for an operator looking at a key (the node's dashboard): the
 * nodes in the key's replica order, each read at once through the replica reads the coordinator
 * uses (the local engine; the authenticated internal GET for peers, bounded by the replica timeout).
 *
 * <p>Only reads, and only looks: unlike a coordinated GET it repairs nothing, observes no timestamp
 * into the clock and tells no call listener (these reads are not client traffic, and a peer's
 * health or metrics should not move because someone looked at a key).
 *
 * <p>Threading: immutable, thread-safe. Call on a thread that may read the disk (the handler
 * executor): the local read runs on the calling thread. The future completes on whichever thread
 * delivered the last answer; it never completes exceptionally, a failed read is a {@link Copy}
 * with its failure.
 */
public final class KeyReplicas {

    /**
     * One node's copy of the key.
     *
     * @param rank    1 for the key's primary, 2 for the next node in its replica order, ...
     * @param record  what the node holds (a tombstone for a deleted key), empty when it holds
     *                nothing; null when the read failed
     * @param failure why the read failed, or null
     */
    public record Copy(ClusterNode node, int rank, Optional<Record> record, String failure) {
        public boolean failed() {
            return failure != null;
        }
    }

    private final java.util.function.Supplier<RendezvousPlacement> placement;
    private final java.util.function.Function<ClusterNode, Replica> replicas;

    /** @param replicas one per node of the placement's cluster ({@link Coordinator#replicasFor}) */
    public KeyReplicas(RendezvousPlacement placement, Map<ClusterNode, Replica> replicas) {
        this(() -> placement, Map.copyOf(replicas)::get);
    }

    /** @param placement the owners of this moment, read per lookup; @param replicas each owner's replica */
    public KeyReplicas(java.util.function.Supplier<RendezvousPlacement> placement,
                       java.util.function.Function<ClusterNode, Replica> replicas) {
        this.placement = placement;
        this.replicas = replicas;
    }

    /** Every node's copy of {@code key}, in the key's replica order (the primary first). */
    public CompletableFuture<List<Copy>> read(byte[] key) {
        List<ClusterNode> order = placement.get().order(key);
        List<CompletableFuture<Copy>> reads = new ArrayList<>(order.size());
        for (int i = 0; i < order.size(); i++) {
            ClusterNode node = order.get(i);
            int rank = i + 1;
            reads.add(replicas.apply(node).read(key).handle((record, error) -> error == null
                    ? new Copy(node, rank, record, null)
                    : new Copy(node, rank, null, describe(error))));
        }
        return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new))
                .thenApply(ignored -> reads.stream().map(CompletableFuture::join).toList());
    }

    /** The failure without the future's wrapper: "ConnectException: ..." reads better than "CompletionException: ...". */
    private static String describe(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause.getMessage() == null ? cause.getClass().getSimpleName()
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
