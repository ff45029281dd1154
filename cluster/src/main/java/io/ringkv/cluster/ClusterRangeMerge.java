package io.ringkv.cluster;

import io.ringkv.http.server.ChunkSource;
import io.ringkv.store.Record;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public range response of a cluster: a k-way merge of every node's share (this node's
 * cursor and the other nodes' internal range streams) into one stream in unsigned key order,
 * with the freshest version of each key ({@link Record#compareTo}) and tombstones dropped, and
 * so are expired records: an expired record is its key's freshest version, so the key is left out
 * rather than shown with an older value. Each record is judged by the clock when the merge reaches
 * it, not once at the start, so a long range sends nothing that expired before it was sent.
 * One chunk per live record, {@code key '\n' value}, as the single-node API sends.
 *
 * <p>Worked example: node A streams {@code a@5, c@7(tombstone)}, node B streams
 * {@code a@9, b@1, c@3}. The heap holds one head per stream: {@code a@5 (A), a@9 (B)}. Both heads
 * with key {@code a} are taken, {@code a@9} wins and is sent, A and B advance. Next {@code b@1}
 * is sent. Then {@code c@7(tombstone)} beats {@code c@3}: nothing is sent for {@code c}.
 *
 * <p>It reads either way, not both: as a {@link ChunkSource} in the public format ({@link #next()}),
 * or record by record as a {@link LiveRangeCursor} ({@link #advance()}, {@link #key()},
 * {@link #value()}) for a caller that formats or pages the range itself.
 *
 * <p>Memory: one head entry per stream plus the streams' read buffers, whatever the size of the
 * range. Threading: as {@link ChunkSource}; {@link #next()} blocks while a remote stream's next
 * bytes are in flight, which is allowed because the server calls it on its handler executor.
 */
public final class ClusterRangeMerge implements ChunkSource, LiveRangeCursor {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterRangeMerge.class);
    private static final byte SEPARATOR = '\n';

    private final List<RecordStream> streams;
    private final LongSupplier nowMillis;
    private final PriorityQueue<Head> heads;
    /**
     * The heads of the current key, taken off the heap. Their streams advance only when the
     * caller moves on, because a stream may reuse its key and value arrays from entry to entry
     * and the current record's arrays must stay valid until then.
     */
    private final List<Head> taken;
    private Head current;
    private boolean primed;

    /**
     * Takes ownership of {@code streams}: {@link #close()} closes them all.
     *
     * @param nowMillis the time expiry is judged by ({@link Coordinator#expiryClockMillis}), read
     *                  for each record that has an expiry
     */
    public ClusterRangeMerge(List<RecordStream> streams, LongSupplier nowMillis) {
        this.streams = List.copyOf(streams);
        this.nowMillis = nowMillis;
        this.heads = new PriorityQueue<>(Math.max(1, streams.size()), (a, b) -> Arrays.compareUnsigned(a.key, b.key));
        this.taken = new ArrayList<>(Math.max(1, streams.size()));
    }

    /** The next record as one chunk {@code key '\n' value}, or null at the end. */
    @Override
    public ByteBuffer next() throws IOException {
        return advance() ? chunk(current.key, current.record.value()) : null;
    }

    @Override
    public boolean advance() throws IOException {
        prime();
        advanceTaken();
        while (!heads.isEmpty()) {
            Head winner = takeSmallestKey();
            if (readable(winner.record)) {
                current = winner;
                return true;
            }
            advanceTaken();
        }
        current = null;
        return false;
    }

    private boolean readable(Record record) {
        return !record.tombstone() && !(record.expires() && record.expiredAt(nowMillis.getAsLong()));
    }

    @Override
    public byte[] key() {
        return currentHead().key;
    }

    @Override
    public byte[] value() {
        return currentHead().record.value();
    }

    private Head currentHead() {
        if (current == null) {
            throw new IllegalStateException("no current record: advance() has not returned true");
        }
        return current;
    }

    /** Closes every stream, even when some fail to close. */
    @Override
    public void close() {
        heads.clear();
        taken.clear();
        current = null;
        for (RecordStream stream : streams) {
            try {
                stream.close();
            } catch (RuntimeException e) {
                LOG.warn("closing a range stream failed", e);
            }
        }
    }

    private void prime() throws IOException {
        if (!primed) {
            primed = true;
            for (RecordStream stream : streams) {
                pull(stream);
            }
        }
    }

    /**
     * Moves every head with the smallest key from the heap to {@link #taken} and returns the
     * freshest of them; their streams advance at the next {@link #advanceTaken()}.
     */
    private Head takeSmallestKey() {
        taken.add(heads.poll());
        while (!heads.isEmpty() && Arrays.equals(heads.peek().key, taken.get(0).key)) {
            taken.add(heads.poll());
        }
        Head winner = taken.get(0);
        for (Head head : taken) {
            winner = head.record.isNewerThan(winner.record) ? head : winner;
        }
        return winner;
    }

    private void advanceTaken() throws IOException {
        for (Head head : taken) {
            pull(head.stream);
        }
        taken.clear();
    }

    private void pull(RecordStream stream) throws IOException {
        if (stream.next()) {
            heads.add(new Head(stream, stream.key(), stream.record()));
        }
    }

    private static ByteBuffer chunk(byte[] key, byte[] value) {
        ByteBuffer chunk = ByteBuffer.allocate(key.length + 1 + value.length);
        return chunk.put(key).put(SEPARATOR).put(value).flip();
    }

    private record Head(RecordStream stream, byte[] key, Record record) {
    }
}
