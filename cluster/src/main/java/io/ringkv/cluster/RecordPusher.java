package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends records to one peer ({@link InternalProtocol#RECORDS_PATH}, applied by last-write-wins) in
 * requests the peer takes, for hint replay and anti-entropy:
 * <ul>
 *   <li>A batch leaves before the record that would take it past {@code recordsMax} records or its
 *       body past {@link ReplicaClient#batchBodyBytesMax}, which is within the peer's body limit.
 *       The bound is checked before a record joins, never after: a batch that grew past it and then
 *       left was refused with 413 every time.</li>
 *   <li>A record too large for a batch on its own travels alone on the one-record path
 *       ({@link ReplicaClient#write}), whose body is the value alone, so the peer takes any record
 *       its public API took.</li>
 *   <li>A batch the peer refuses for its content ({@link RecordsRefusedException}: a record larger
 *       than a peer with a lower limit takes, one stamped too far ahead of its clock) is sent again a
 *       record at a time, so a record the peer will not take costs only itself: it is reported to
 *       {@link Outcomes#refused} and the others still arrive.</li>
 * </ul>
 * Any other failure (the peer down, too slow, answering 5xx) is thrown: the caller gives up on
 * that peer until its next round (batches still in flight then are left to finish or fail alone).
 *
 * <p>Up to {@code inFlightMax} batches travel at once: with more than one, the caller goes on
 * reading while the peer applies the batch before, instead of the two taking turns.
 *
 * <p>Threading: confined to its caller's thread, which waits for each answer (at most
 * {@code answerWait}); one pusher per peer and pass.
 */
final class RecordPusher {

    /** What became of the records, told as it happens. */
    interface Outcomes {
        /** The peer refused this record sent alone: sending it again will not help. */
        void refused(byte[] key, Record record, RecordsRefusedException why);

        /** The peer took {@code records} more records (applied or already held newer). */
        default void taken(int records) {
        }
    }

    private final ReplicaClient client;
    private final ClusterNode peer;
    private final int recordsMax;
    private final int inFlightMax;
    /** Batches sent and not yet answered, oldest first; at most {@link #inFlightMax}. */
    private final ArrayDeque<Sent> inFlight = new ArrayDeque<>();
    private final long answerMillis;
    private final Outcomes outcomes;
    private List<Map.Entry<byte[], Record>> pending = new ArrayList<>();
    /** What {@link #pending} makes a request's body: its frames and the end marker. */
    private long pendingBodyBytes = END_MARKER_BYTES;
    private int taken;

    private static final int END_MARKER_BYTES = Integer.BYTES;

    RecordPusher(ReplicaClient client, ClusterNode peer, int recordsMax, Duration answerWait, Outcomes outcomes) {
        this(client, peer, recordsMax, 1, answerWait, outcomes);
    }

    RecordPusher(ReplicaClient client, ClusterNode peer, int recordsMax, int inFlightMax, Duration answerWait,
                 Outcomes outcomes) {
        if (recordsMax < 1) {
            throw new IllegalArgumentException("a batch must hold at least one record, got " + recordsMax);
        }
        if (inFlightMax < 1) {
            throw new IllegalArgumentException("at least one batch must be allowed in flight, got " + inFlightMax);
        }
        this.inFlightMax = inFlightMax;
        this.client = client;
        this.peer = peer;
        this.recordsMax = recordsMax;
        this.answerMillis = answerWait.toMillis();
        this.outcomes = outcomes;
    }

    /**
     * Adds a record, first sending the batch it would not fit.
     *
     * @param key after every key added before (the peer requires ascending keys, each once)
     */
    void add(byte[] key, Record record) throws ExecutionException, TimeoutException, InterruptedException {
        long frame = RecordFrames.frameBytes(key, record);
        if (!pending.isEmpty() && (pending.size() == recordsMax || pendingBodyBytes + frame > client.batchBodyBytesMax())) {
            flush();
        }
        pending.add(new AbstractMap.SimpleImmutableEntry<>(key, record));
        pendingBodyBytes += frame;
    }

    /** Sends what is left and waits for every answer; returns how many records the peer took in all. */
    int finish() throws ExecutionException, TimeoutException, InterruptedException {
        flush();
        while (!inFlight.isEmpty()) {
            complete(inFlight.removeFirst());
        }
        return taken;
    }

    private void flush() throws ExecutionException, TimeoutException, InterruptedException {
        if (pending.isEmpty()) {
            return;
        }
        List<Map.Entry<byte[], Record>> batch = pending;
        long bodyBytes = pendingBodyBytes;
        pending = new ArrayList<>();
        pendingBodyBytes = END_MARKER_BYTES;
        if (inFlight.size() == inFlightMax) {
            complete(inFlight.removeFirst());
        }
        inFlight.addLast(send(batch, bodyBytes));
    }

    private Sent send(List<Map.Entry<byte[], Record>> batch, long bodyBytes) {
        if (batch.size() == 1 && bodyBytes > client.batchBodyBytesMax()) {
            Map.Entry<byte[], Record> alone = batch.getFirst();
            return new Sent(batch, client.write(peer, alone.getKey(), alone.getValue()));
        }
        return new Sent(batch, client.writeBatch(peer, batch));
    }

    /** Waits for a batch's answer; one refused for its content goes again a record at a time. */
    private void complete(Sent sent) throws ExecutionException, TimeoutException, InterruptedException {
        List<Map.Entry<byte[], Record>> batch = sent.batch();
        try {
            await(sent.answer());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof RecordsRefusedException refusal)) {
                throw e;
            }
            if (batch.size() == 1) {
                outcomes.refused(batch.getFirst().getKey(), batch.getFirst().getValue(), refusal);
                return;
            }
            for (Map.Entry<byte[], Record> entry : batch) {
                complete(send(List.of(entry), END_MARKER_BYTES + RecordFrames.frameBytes(entry.getKey(), entry.getValue())));
            }
            return;
        }
        taken += batch.size();
        outcomes.taken(batch.size());
    }

    private void await(Future<?> answer) throws ExecutionException, TimeoutException, InterruptedException {
        answer.get(answerMillis, TimeUnit.MILLISECONDS);
    }

    /** A batch on its way, and the answer it will get. */
    private record Sent(List<Map.Entry<byte[], Record>> batch, Future<?> answer) {
    }
}
