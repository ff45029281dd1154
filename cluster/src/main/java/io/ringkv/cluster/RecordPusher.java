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
 * Sends records to one peer as write batches ({@link ReplicaClient#writeEach}, applied by
 * last-write-wins) in requests the peer takes, for hint replay, anti-entropy and hand-over:
 * <ul>
 *   <li>A batch leaves before the record that would take it past {@code recordsMax} records or its
 *       body past {@link ReplicaClient#batchBodyBytesMax}, which is within the peer's body limit.
 *       The bound is checked before a record joins, never after: a batch that grew past it and then
 *       left was refused with 413 every time.</li>
 *   <li>A record too large for a batch leaves alone, as a batch of its own, which the peer takes up
 *       to its body limit plus {@link InternalProtocol#ONE_WRITE_ENVELOPE_BYTES}: any record its
 *       public API took.</li>
 *   <li>A record the peer refuses in its answer (stamped too far ahead of its clock) is reported to
 *       {@link Outcomes#refused}; the batch's other records arrived. A batch the peer refuses
 *       whole for its content ({@link RecordsRefusedException}: 413 from a peer with a lower limit,
 *       400) is sent again a record at a time, so a record the peer will not take costs only
 *       itself.</li>
 * </ul>
 * Any other failure (the peer down, too slow, answering 5xx) is thrown (batches still in flight
 * then are left to finish or fail alone): hint replay and anti-entropy give up on that peer until
 * their next round; a cleanup or hand-over sends the chunk again with a new pusher a bounded number
 * of times first ({@code Cleanup}).
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
    private final long routedAt;
    private List<Map.Entry<byte[], Record>> pending = new ArrayList<>();
    /** What {@link #pending} makes a request's body: its frames and the end marker. */
    private long pendingBodyBytes = END_MARKER_BYTES;
    private int taken;

    private static final int END_MARKER_BYTES = Integer.BYTES;

    /** One batch in flight, stamped with this node's epoch when each batch leaves. */
    RecordPusher(ReplicaClient client, ClusterNode peer, int recordsMax, Duration answerWait, Outcomes outcomes) {
        this(client, peer, recordsMax, 1, answerWait, -1, outcomes);
    }

    /**
     * @param routedAt the metadata epoch of the view the records' targets were chosen by (a
     *                 hand-over's, a hint replay's), which every batch carries when it is below
     *                 this node's epoch of now ({@link ReplicaClient#writeEach(ClusterNode, List, List, long)});
     *                 negative: this node's epoch when each batch leaves
     */
    RecordPusher(ReplicaClient client, ClusterNode peer, int recordsMax, int inFlightMax, Duration answerWait, long routedAt,
                 Outcomes outcomes) {
        if (recordsMax < 1 || recordsMax > WriteBatchCodec.RECORDS_MAX) {
            throw new IllegalArgumentException("a batch holds 1 to " + WriteBatchCodec.RECORDS_MAX + " records, got " + recordsMax);
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
        this.routedAt = routedAt;
    }

    /**
     * Adds a record, first sending the batch it would not fit.
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
        pending = new ArrayList<>();
        pendingBodyBytes = END_MARKER_BYTES;
        if (inFlight.size() == inFlightMax) {
            complete(inFlight.removeFirst());
        }
        inFlight.addLast(send(batch));
    }

    private Sent send(List<Map.Entry<byte[], Record>> batch) {
        List<byte[]> keys = new ArrayList<>(batch.size());
        List<Record> records = new ArrayList<>(batch.size());
        for (Map.Entry<byte[], Record> entry : batch) {
            keys.add(entry.getKey());
            records.add(entry.getValue());
        }
        return new Sent(batch, client.writeEach(peer, keys, records, routedAt));
    }

    /**
     * Waits for a batch's answer and reports each record's outcome; a batch refused whole for its
     * content goes again a record at a time.
     */
    private void complete(Sent sent) throws ExecutionException, TimeoutException, InterruptedException {
        List<Map.Entry<byte[], Record>> batch = sent.batch();
        long[] answers;
        try {
            answers = await(sent.answer());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof RecordsRefusedException refusal)) {
                throw e;
            }
            if (batch.size() == 1) {
                outcomes.refused(batch.getFirst().getKey(), batch.getFirst().getValue(), refusal);
                return;
            }
            for (Map.Entry<byte[], Record> entry : batch) {
                complete(send(List.of(entry)));
            }
            return;
        }
        int tookHere = 0;
        for (int i = 0; i < batch.size(); i++) {
            Map.Entry<byte[], Record> entry = batch.get(i);
            if (answers[i] == WriteBatchCodec.REFUSED_AHEAD) {
                outcomes.refused(entry.getKey(), entry.getValue(), ReplicaClient.refusedAhead(peer, entry.getValue()));
            } else {
                tookHere++; // stored, or the peer holds something newer already
            }
        }
        taken += tookHere;
        outcomes.taken(tookHere);
    }

    private long[] await(Future<long[]> answer) throws ExecutionException, TimeoutException, InterruptedException {
        return answer.get(answerMillis, TimeUnit.MILLISECONDS);
    }

    /** A batch on its way, and the answer it will get. */
    private record Sent(List<Map.Entry<byte[], Record>> batch, Future<long[]> answer) {
    }
}
