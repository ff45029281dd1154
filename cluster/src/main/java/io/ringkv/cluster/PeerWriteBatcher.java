package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A coordinator's writes to one peer, in batches ({@link PeerBatcher}) of
 * {@link InternalProtocol#WRITES_PATH} requests: the peer applies a batch in one storage write and
 * answers each write. A batch's body stays within {@link ReplicaClient#batchBodyBytesMax}, the
 * peer's body limit at most, so the peer never refuses one for its size; a record too large for
 * that goes at once as a batch of its own ({@link ReplicaClient#write}), which the peer takes
 * whenever its public API would have taken the value. Every write's future completes: with the
 * peer's answer for it, with the batch's failure (a timeout, a refused connection, a status other
 * than 200), or with its own refusal (stamped beyond the peer's clock bound,
 * {@link ReplicaClient#writeOutcome}).
 *
 * <p>Threading: as {@link PeerBatcher}.
 */
final class PeerWriteBatcher {

    private final ClusterNode node;
    private final ReplicaClient client;
    private final PeerBatcher<PendingWrite, long[]> batches;
    /** The frames one batch may carry: the body's bound less its end marker. */
    private final int framesBytesMax;

    /** @param batchesInFlight at least 1: batches to this peer unanswered at once before writes queue */
    PeerWriteBatcher(ClusterNode node, ReplicaClient client, int batchesInFlight) {
        this.node = node;
        this.client = client;
        this.framesBytesMax = client.batchBodyBytesMax() - WriteBatchCodec.END_MARKER_BYTES;
        this.batches = new PeerBatcher<>(batchesInFlight, WriteBatchCodec.RECORDS_MAX, framesBytesMax,
                new PeerBatcher.BatchCall<>() {
                    @Override
                    public CompletableFuture<long[]> send(List<PendingWrite> batch) {
                        List<byte[]> keys = new ArrayList<>(batch.size());
                        List<Record> records = new ArrayList<>(batch.size());
                        long routedAt = Long.MAX_VALUE;
                        for (PendingWrite write : batch) {
                            keys.add(write.key);
                            records.add(write.record);
                            routedAt = Math.min(routedAt, write.routedAt);
                        }
                        return client.writeEach(node, keys, records, routedAt);
                    }

                    @Override
                    public void complete(List<PendingWrite> batch, long[] answers, Throwable failure) {
                        for (int i = 0; i < batch.size(); i++) {
                            batch.get(i).complete(node, failure == null ? answers[i] : 0, failure);
                        }
                    }
                });
    }

    /** As below, routed by this node's view of now. */
    CompletableFuture<OptionalLong> write(byte[] key, Record record) {
        return write(key, record, -1);
    }

    /**
     * As {@link Replica#write(byte[], Record, long)}: empty once the peer holds {@code record}, else
     * the timestamp of the fresher one it keeps.
     *
     * @param routedAt the metadata epoch of the view the coordinator chose the replicas by; negative:
     *                 this node's epoch now
     */
    CompletableFuture<OptionalLong> write(byte[] key, Record record, long routedAt) {
        int frameBytes = RecordFrames.frameBytes(key, record);
        if (frameBytes > framesBytesMax) {
            return client.write(node, key, record, routedAt);
        }
        PendingWrite write = new PendingWrite(key, record, routedAt < 0 ? client.epoch() : routedAt, new CompletableFuture<>());
        batches.add(write, frameBytes);
        return write.answer;
    }

    /** Requests that carried batches of writes to this peer, and the writes in them, since start. */
    PeerBatches.Counts counts() {
        return new PeerBatches.Counts(batches.batchesSent(), batches.callsSent());
    }

    /** Writes waiting for the next batch to this peer (for tests). */
    int queuedForTests() {
        return batches.queued();
    }

    /**
     * @param routedAt the metadata epoch of the view the write's replicas were chosen by: the batch
     *                 carries its writes' oldest, so that a peer that learned of a newer epoch
     *                 meanwhile knows the batch was routed under older owners
     *                 ({@link ReplicaClient#writeEach(ClusterNode, List, List, long)})
     */
    private record PendingWrite(byte[] key, Record record, long routedAt, CompletableFuture<OptionalLong> answer) {

        void complete(ClusterNode node, long answered, Throwable failure) {
            if (failure != null) {
                answer.completeExceptionally(failure);
            } else if (answered == WriteBatchCodec.REFUSED_AHEAD) {
                answer.completeExceptionally(ReplicaClient.refusedAhead(node, record));
            } else {
                answer.complete(ReplicaClient.writeOutcome(node, record, answered));
            }
        }
    }
}
