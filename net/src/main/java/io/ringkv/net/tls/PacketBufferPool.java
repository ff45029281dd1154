package io.ringkv.net.tls;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Buffers for full TLS records, shared by the connections of the process, so a bulk write does
 * not allocate (and zero) a fresh packet-sized buffer per 16 KiB record. On a 1 MiB POST over
 * HTTP/2 with TLS, those allocations were 14 % of the client's CPU (async-profiler, 64 in flight).
 *
 * <p>Bounded: at most {@link #BUFFERS_MAX} buffers wait here (about 4.3 MB); what comes back beyond
 * that is left to the garbage collector. A buffer smaller than asked for (the session's packet
 * size can differ between protocol versions) is dropped and a new one made.
 *
 * <p>Threading: lock-free, any thread.
 */
final class PacketBufferPool {
    static final int BUFFERS_MAX = 256;

    static final PacketBufferPool SHARED = new PacketBufferPool(BUFFERS_MAX);

    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int buffersMax;

    PacketBufferPool(int buffersMax) {
        this.buffersMax = buffersMax;
    }

    /** A cleared buffer of at least {@code capacity} bytes; its contents are undefined. */
    ByteBuffer take(int capacity) {
        ByteBuffer buffer = free.poll();
        if (buffer == null) {
            return ByteBuffer.allocate(capacity);
        }
        size.decrementAndGet();
        return buffer.capacity() >= capacity ? buffer.clear() : ByteBuffer.allocate(capacity);
    }

    /** Hands a buffer back; the caller must hold no reference to it any more, nor anyone else. */
    void give(ByteBuffer buffer) {
        if (size.incrementAndGet() > buffersMax) {
            size.decrementAndGet();
            return;
        }
        free.offer(buffer);
    }

    int size() {
        return size.get();
    }
}
