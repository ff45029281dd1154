package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Carries the writes a coordinator sends to one peer in as few requests as the load allows. While
 * fewer than {@code batchesInFlight} batches to the peer are unanswered, a write leaves at once, in
 * a batch of its own; otherwise it waits for the next answer and then leaves with every write that
 * queued meanwhile, in one {@link InternalProtocol#WRITES_PATH} request. So a lone write pays no
 * wait, and under load the number of requests (their HTTP/2 frames, signatures, handler runs and
 * the replica's disk writes: a batch is one RocksDB write) follows the peer's round trips, not the
 * client's writes: the batch grows with the load.
 *
 * <p>Bounds: a batch holds at most {@link WriteBatchCodec#RECORDS_MAX} writes and about
 * {@link WriteBatchCodec#BYTES_MAX} bytes; a full batch leaves at once, even beyond
 * {@code batchesInFlight}, so nothing queues without limit here (the server's in-flight budget
 * bounds the writes a node takes on). A record larger than {@link WriteBatchCodec#BYTES_MAX} goes
 * alone on the one-record path. Every write's future completes: with the peer's answer for it,
 * with the batch's failure (a timeout, a refused connection, a status other than 200), or with
 * its own refusal.
 *
 * <p>Threading: {@link #write} from any thread; answers arrive on the inter-node client's threads
 * (its event loop, with ringkv's client). {@link #lock} guards only the queue and the in-flight
 * count, never a send or a future's completion, so continuations never run under it and a write
 * made by one cannot deadlock.
 */
final class PeerWriteBatcher {

    private final ClusterNode node;
    private final ReplicaClient client;
    private final int batchesInFlight;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by {@link #lock}. */
    private List<PendingWrite> queued = new ArrayList<>();
    /** Guarded by {@link #lock}: bytes of {@link #queued}'s frames. */
    private int queuedBytes;
    /** Guarded by {@link #lock}: batches sent and not yet answered. */
    private int inFlight;

    /** @param batchesInFlight at least 1: batches to this peer unanswered at once before writes queue */
    PeerWriteBatcher(ClusterNode node, ReplicaClient client, int batchesInFlight) {
        if (batchesInFlight < 1) {
            throw new IllegalArgumentException("batches in flight must be at least 1, got " + batchesInFlight);
        }
        this.node = node;
        this.client = client;
        this.batchesInFlight = batchesInFlight;
    }

    /** As {@link Replica#write}: empty once the peer holds {@code record}, else the timestamp of the fresher one it keeps. */
    CompletableFuture<OptionalLong> write(byte[] key, Record record) {
        int frameBytes = RecordFrames.frameBytes(key, record);
        if (frameBytes > WriteBatchCodec.BYTES_MAX) {
            return client.write(node, key, record);
        }
        PendingWrite write = new PendingWrite(key, record, new CompletableFuture<>());
        List<PendingWrite> leaving = null;
        List<PendingWrite> full = null;
        lock.lock();
        try {
            if (inFlight < batchesInFlight && queued.isEmpty()) {
                inFlight++;
                leaving = List.of(write);
            } else {
                if (queuedBytes + frameBytes > WriteBatchCodec.BYTES_MAX) {
                    full = takeQueued();
                }
                queued.add(write);
                queuedBytes += frameBytes;
                if (queued.size() == WriteBatchCodec.RECORDS_MAX) {
                    leaving = takeQueued();
                }
            }
        } finally {
            lock.unlock();
        }
        if (full != null) {
            send(full);
        }
        if (leaving != null) {
            send(leaving);
        }
        return write.answer;
    }

    /** Empties the queue into a batch counted in flight. Holds {@link #lock}. */
    private List<PendingWrite> takeQueued() {
        List<PendingWrite> batch = queued;
        queued = new ArrayList<>();
        queuedBytes = 0;
        inFlight++;
        return batch;
    }

    private void send(List<PendingWrite> batch) {
        CompletableFuture<long[]> answers;
        try {
            answers = client.writeEach(node, keys(batch), records(batch));
        } catch (RuntimeException e) { // a client already closed, a request it cannot build
            answers = CompletableFuture.failedFuture(e);
        }
        answers.whenComplete((result, error) -> {
            // The next batch leaves before this one's writers run on: the peer stays busy meanwhile.
            sendQueued();
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).complete(node, result == null ? 0 : result[i], error);
            }
        });
    }

    /** One batch answered: sends what queued meanwhile, if anything did. */
    private void sendQueued() {
        List<PendingWrite> next = null;
        lock.lock();
        try {
            inFlight--;
            if (!queued.isEmpty()) {
                next = takeQueued();
            }
        } finally {
            lock.unlock();
        }
        if (next != null) {
            send(next);
        }
    }

    /** Writes waiting for the next batch to this peer (for tests). */
    int queuedForTests() {
        lock.lock();
        try {
            return queued.size();
        } finally {
            lock.unlock();
        }
    }

    private static List<byte[]> keys(List<PendingWrite> batch) {
        List<byte[]> keys = new ArrayList<>(batch.size());
        for (PendingWrite write : batch) {
            keys.add(write.key);
        }
        return keys;
    }

    private static List<Record> records(List<PendingWrite> batch) {
        List<Record> records = new ArrayList<>(batch.size());
        for (PendingWrite write : batch) {
            records.add(write.record);
        }
        return records;
    }

    private record PendingWrite(byte[] key, Record record, CompletableFuture<OptionalLong> answer) {

        void complete(ClusterNode node, long answered, Throwable error) {
            if (error != null) {
                answer.completeExceptionally(error);
            } else if (answered == WriteBatchCodec.STORED) {
                answer.complete(OptionalLong.empty());
            } else if (answered == WriteBatchCodec.REFUSED_AHEAD) {
                answer.completeExceptionally(new ReplicaException(node, "refused a record stamped "
                        + record.timestamp() + ": further ahead of its clock than the bound"));
            } else {
                answer.complete(answered > record.timestamp() ? OptionalLong.of(answered) : OptionalLong.empty());
            }
        }
    }
}
