package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A coordinator's reads from one peer, in batches ({@link PeerBatcher}) of
 * {@link InternalProtocol#READS_PATH} requests, each key answered on its own. A batch's body stays
 * within {@link ReadBatchCodec#BYTES_MAX} and {@link ReplicaClient#batchBodyBytesMax}, so a peer
 * with a small body limit takes it; a key too long for a batch of its own is read alone on the
 * one-record path, as is a key the peer defers (its answer already full of values). Every
 * read's future completes: with the peer's record, empty, or the batch's failure.
 *
 * <p>Threading: as {@link PeerBatcher}.
 */
final class PeerReadBatcher {

    private final ClusterNode node;
    private final ReplicaClient client;
    private final PeerBatcher<PendingRead, List<ReadBatchCodec.Answer>> batches;
    /** The keys one batch may carry, in bytes: the body's bound less its end marker. */
    private final int keysBytesMax;

    /** @param batchesInFlight at least 1: batches to this peer unanswered at once before reads queue */
    PeerReadBatcher(ClusterNode node, ReplicaClient client, int batchesInFlight) {
        this.node = node;
        this.client = client;
        this.keysBytesMax = Math.min(ReadBatchCodec.BYTES_MAX, client.batchBodyBytesMax()) - ReadBatchCodec.END_MARKER_BYTES;
        this.batches = new PeerBatcher<>(batchesInFlight, ReadBatchCodec.KEYS_MAX, keysBytesMax,
                new PeerBatcher.BatchCall<>() {
                    @Override
                    public CompletableFuture<List<ReadBatchCodec.Answer>> send(List<PendingRead> batch) {
                        List<byte[]> keys = new ArrayList<>(batch.size());
                        for (PendingRead read : batch) {
                            keys.add(read.key);
                        }
                        return client.readEach(node, keys);
                    }

                    @Override
                    public void complete(List<PendingRead> batch, List<ReadBatchCodec.Answer> answers, Throwable failure) {
                        for (int i = 0; i < batch.size(); i++) {
                            PendingRead read = batch.get(i);
                            if (failure != null) {
                                read.answer.completeExceptionally(failure);
                            } else if (answers.get(i).deferred()) {
                                askAlone(read);
                            } else {
                                read.answer.complete(answers.get(i).found());
                            }
                        }
                    }
                });
    }

    /** As {@link Replica#read}. */
    CompletableFuture<Optional<Record>> read(byte[] key) {
        PendingRead read = new PendingRead(key, new CompletableFuture<>());
        int keyBytes = ReadBatchCodec.keyBytes(key);
        if (keyBytes > keysBytesMax) {
            askAlone(read);
        } else {
            batches.add(read, keyBytes);
        }
        return read.answer;
    }

    /** Requests that carried batches of reads to this peer, and the reads in them, since start. */
    PeerBatches.Counts counts() {
        return new PeerBatches.Counts(batches.batchesSent(), batches.callsSent());
    }

    /** Reads waiting for the next batch to this peer (for tests). */
    int queuedForTests() {
        return batches.queued();
    }

    private void askAlone(PendingRead read) {
        CompletableFuture<Optional<Record>> alone;
        try {
            alone = client.read(node, read.key);
        } catch (RuntimeException e) {
            alone = CompletableFuture.failedFuture(e);
        }
        alone.whenComplete((record, failure) -> {
            if (failure != null) {
                read.answer.completeExceptionally(failure);
            } else {
                read.answer.complete(record);
            }
        });
    }

    private record PendingRead(byte[] key, CompletableFuture<Optional<Record>> answer) {
    }
}
