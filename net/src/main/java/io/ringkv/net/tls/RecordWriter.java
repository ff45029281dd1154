package io.ringkv.net.tls;

import io.ringkv.net.ExclusiveOutbound;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * The outbound half of a {@link TlsConnection}: plaintext groups wait here until a flush, then one
 * thread at a time wraps everything waiting into as few TLS records as the engine allows and
 * enqueues them on the plain connection as one group (so one gathering socket write).
 *
 * <p>Why plaintext waits instead of being wrapped on arrival: records carry sequence numbers, so
 * once a group is wrapped its place in the stream is fixed. Waiting lets a flush (a) put several
 * small groups (a request head and its body, many HTTP/2 frames) into one record, and (b) let an
 * urgent group go ahead of every group not yet wrapped. Groups stay whole and in order: urgent
 * groups are taken before normal ones, but only between groups.
 *
 * <p>Threading: {@link #add} from any thread, lock-free. {@link #wrapQueued} takes {@link #lock}
 * for the wrap and the enqueue on the plain connection (both must happen in record order) and
 * never writes the socket: the caller flushes after it returns.
 *
 * <p>Buffers: a record that cannot be full (less than {@value #FULL_RECORD_PLAINTEXT} bytes of
 * plaintext left) is wrapped into a per-connection scratch buffer and copied out at its exact size,
 * so a small write costs its own size, not a packet buffer (~16.7 KB). A full record is wrapped
 * straight into a packet-sized buffer of its own (no copy; at most the record overhead unused),
 * taken from {@link PacketBufferPool}. Buffers handed to the plain connection belong to it until
 * it has written them: each group of pooled buffers waits in {@link #inFlight} with the plain
 * connection's {@code bytesEnqueued} read after its enqueue, and goes back to the pool once
 * {@code bytesWritten} reaches that count, checked before each wrap and after each flush (at most
 * {@link #IN_FLIGHT_BUFFERS_MAX} per connection). The count is exact because groups leave in the
 * order they were enqueued, and the types see to that: the writer enqueues only through the plain
 * connection's {@link ExclusiveOutbound}, which has no urgent enqueue and which the
 * {@link TlsConnection} claimed when the plain connection opened, after which the connection
 * refuses every other writer (and a second claim). A plain connection that does not count
 * ({@code -1}) gets fresh buffers, never reused.
 */
final class RecordWriter {
    /** Plaintext of a full record (RFC 8446 §5.1: 2^14); the engine never puts more in one. */
    static final int FULL_RECORD_PLAINTEXT = 16 * 1024;
    /**
     * Pooled buffers one connection may have in flight (about 1 MiB, the client's write high-water
     * mark); full records beyond it get fresh buffers. It bounds what an idle connection can keep
     * from the pool when its last group was written by the loop after the flush that queued it.
     */
    static final int IN_FLIGHT_BUFFERS_MAX = 64;
    /** Plaintext taken from the queues before wrapping: two full records, so records can be full. */
    static final int BATCH_BYTES_TARGET = 2 * FULL_RECORD_PLAINTEXT;
    private static final ByteBuffer[] NO_PLAINTEXT = {ByteBuffer.allocate(0)};

    private final SSLEngine engine;
    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentLinkedQueue<ByteBuffer[]> normal = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<ByteBuffer[]> urgent = new ConcurrentLinkedQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    // Guarded by lock below.
    private ByteBuffer[] batch = new ByteBuffer[16];
    private int batchStart;
    private int batchEnd;
    private long batchBytes;
    private ByteBuffer scratch;
    private final ArrayList<ByteBuffer> records = new ArrayList<>();
    private final PacketBufferPool pool;
    /** Pooled buffers among {@link #records}. */
    private final ArrayList<ByteBuffer> pooledRecords = new ArrayList<>();
    /** Groups of pooled buffers the plain connection may still hold, oldest first. */
    private final ArrayDeque<SentBuffers> inFlight = new ArrayDeque<>();
    /** Buffers in {@link #inFlight}; written under the lock, read without it by {@link #reclaimWritten}. */
    private volatile int inFlightBuffers;
    private boolean pooling;

    /** Pooled buffers of one enqueued group, free once the plain connection wrote {@code end} bytes. */
    private record SentBuffers(ByteBuffer[] buffers, long end) {
    }

    RecordWriter(SSLEngine engine) {
        this(engine, PacketBufferPool.SHARED);
    }

    RecordWriter(SSLEngine engine, PacketBufferPool pool) {
        this.engine = engine;
        this.pool = pool;
    }

    /** Queues a group; {@code jumpQueue} puts it ahead of every group not yet wrapped. */
    void add(ByteBuffer[] group, boolean jumpQueue) {
        long bytes = 0;
        for (ByteBuffer buffer : group) {
            bytes += buffer.remaining();
        }
        queuedBytes.addAndGet(bytes);
        (jumpQueue ? urgent : normal).add(group);
    }

    /** Plaintext bytes queued and not yet wrapped. */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /**
     * Wraps what is queued (and handshake messages the engine wants to send) and enqueues the
     * records on the plain connection's queue, {@code plain}; with {@code close}, then close_notify
     * (RFC 8446 §6.1). Stops early
     * when the engine waits for a delegated task or for the peer; what is left stays queued.
     *
     * @return {@code true} when the engine reported a handshake status, so the handshake driver
     *         should look at it (tasks to run, a finished handshake)
     */
    boolean wrapQueued(ExclusiveOutbound plain, boolean close) throws SSLException {
        boolean handshaking = false;
        lock.lock();
        try {
            long written = plain.bytesWritten();
            pooling = written >= 0;
            reclaim(written);
            int packetBytes = engine.getSession().getPacketBufferSize();
            while (true) {
                refill();
                boolean plaintext = batchEnd > batchStart;
                if (!plaintext) {
                    if (close && !engine.isOutboundDone()) {
                        engine.closeOutbound();
                    } else if (close || engine.getHandshakeStatus() != HandshakeStatus.NEED_WRAP) {
                        break;
                    }
                }
                ByteBuffer dst = destination(packetBytes);
                SSLEngineResult result = plaintext
                        ? engine.wrap(batch, batchStart, batchEnd - batchStart, dst)
                        : engine.wrap(NO_PLAINTEXT, dst);
                consumed(result.bytesConsumed());
                if (dst != scratch) {
                    dst.flip();
                    if (dst.hasRemaining()) {
                        records.add(dst);
                    } else if (pooling) {
                        pooledRecords.remove(pooledRecords.size() - 1);
                        pool.give(dst); // nothing was wrapped into it, and nobody else saw it
                    }
                }
                HandshakeStatus status = result.getHandshakeStatus();
                handshaking |= status != HandshakeStatus.NOT_HANDSHAKING;
                if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                    // The session's packet size grew (it can, once negotiated): start a larger buffer.
                    moveScratchOut();
                    packetBytes = engine.getSession().getPacketBufferSize();
                    if (scratch != null && scratch.capacity() < packetBytes) {
                        scratch = ByteBuffer.allocate(packetBytes);
                    }
                    continue;
                }
                if (result.getStatus() == SSLEngineResult.Status.CLOSED && result.bytesProduced() == 0) {
                    dropQueued(); // the engine will send nothing more: queued plaintext cannot go out
                    break;
                }
                if (result.bytesConsumed() == 0 && result.bytesProduced() == 0) {
                    break; // the engine waits (a delegated task, the peer's handshake message)
                }
            }
            moveScratchOut();
            if (!records.isEmpty()) {
                ByteBuffer[] group = records.toArray(ByteBuffer[]::new);
                records.clear();
                // Last, with the batch settled.
                boolean queued = plain.enqueue(group);
                if (!pooledRecords.isEmpty()) {
                    ByteBuffer[] pooled = pooledRecords.toArray(ByteBuffer[]::new);
                    if (queued) {
                        inFlight.addLast(new SentBuffers(pooled, plain.bytesEnqueued()));
                        inFlightBuffers += pooled.length;
                    } else {
                        for (ByteBuffer buffer : pooled) {
                            pool.give(buffer); // the closing connection did not take them
                        }
                    }
                }
            }
            return handshaking;
        } finally {
            records.clear();
            pooledRecords.clear(); // after a failure they are left to the garbage collector
            lock.unlock();
        }
    }

    /**
     * After the flush that follows a wrap: gives back what that flush wrote, so a connection that
     * goes idle keeps nothing from the pool in the usual case (the flushing thread wrote it all).
     * Skips when nothing is in flight or another thread holds the lock (its wrap reclaims).
     */
    void reclaimWritten(ExclusiveOutbound plain) {
        if (inFlightBuffers == 0 || !lock.tryLock()) {
            return;
        }
        try {
            reclaim(plain.bytesWritten());
        } finally {
            lock.unlock();
        }
    }

    /** Gives back the buffers of every group the plain connection has written by now. */
    private void reclaim(long written) {
        SentBuffers sent;
        while ((sent = inFlight.peekFirst()) != null && sent.end() <= written) {
            inFlight.pollFirst();
            inFlightBuffers -= sent.buffers().length;
            for (ByteBuffer buffer : sent.buffers()) {
                pool.give(buffer);
            }
        }
    }

    /** Groups of pooled buffers not yet known to be written (for tests). */
    int groupsInFlight() {
        lock.lock();
        try {
            return inFlight.size();
        } finally {
            lock.unlock();
        }
    }

    /** Drops every queued group (the connection is gone). */
    void dropQueued() {
        lock.lock();
        try {
            normal.clear();
            urgent.clear();
            Arrays.fill(batch, null);
            batchStart = 0;
            batchEnd = 0;
            batchBytes = 0;
            queuedBytes.set(0);
        } finally {
            lock.unlock();
        }
    }

    /** Takes whole groups, urgent ones first, until the batch holds enough for full records. */
    private void refill() {
        while (batchBytes < BATCH_BYTES_TARGET) {
            ByteBuffer[] group = urgent.poll();
            if (group == null && (group = normal.poll()) == null) {
                return;
            }
            if (batchEnd + group.length > batch.length) {
                int live = batchEnd - batchStart;
                ByteBuffer[] target = live + group.length > batch.length
                        ? new ByteBuffer[Math.max(batch.length * 2, live + group.length)] : batch;
                System.arraycopy(batch, batchStart, target, 0, live);
                if (target == batch) {
                    Arrays.fill(batch, live, batchEnd, null);
                }
                batch = target;
                batchStart = 0;
                batchEnd = live;
            }
            for (ByteBuffer buffer : group) {
                if (buffer.hasRemaining()) {
                    batch[batchEnd++] = buffer;
                    batchBytes += buffer.remaining();
                }
            }
        }
    }

    private void consumed(int bytes) {
        if (bytes > 0) {
            batchBytes -= bytes;
            queuedBytes.addAndGet(-bytes);
        }
        while (batchStart < batchEnd && !batch[batchStart].hasRemaining()) {
            batch[batchStart++] = null;
        }
        if (batchStart == batchEnd) {
            batchStart = 0;
            batchEnd = 0;
        }
    }

    /** A buffer of its own for a full record; the scratch buffer for a smaller one. */
    private ByteBuffer destination(int packetBytes) {
        if (batchBytes >= FULL_RECORD_PLAINTEXT) {
            moveScratchOut(); // records stay in order
            if (!pooling || inFlightBuffers + pooledRecords.size() >= IN_FLIGHT_BUFFERS_MAX) {
                return ByteBuffer.allocate(packetBytes);
            }
            ByteBuffer buffer = pool.take(packetBytes);
            pooledRecords.add(buffer);
            return buffer;
        }
        if (scratch == null) {
            scratch = ByteBuffer.allocate(packetBytes);
        } else if (scratch.remaining() < packetBytes) {
            moveScratchOut();
        }
        return scratch;
    }

    private void moveScratchOut() {
        if (scratch == null || scratch.position() == 0) {
            return;
        }
        scratch.flip();
        records.add(ByteBuffer.allocate(scratch.remaining()).put(scratch).flip());
        scratch.clear();
    }
}
