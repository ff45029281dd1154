package io.ringkv.http.client;

import io.ringkv.http.client.internal.Resubscribable;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Request body publishers the JDK's {@link HttpRequest.BodyPublishers} lack. They work with any
 * {@code java.net.http.HttpClient}, the JDK's own included.
 *
 * <p>Why: {@link HttpRequest.BodyPublishers#ofByteArray(byte[])} copies the whole array into new
 * 16 KiB buffers on every subscribe, that is on every send, retry and redirect. On a 1 MiB POST that
 * copy, with the zeroing of the fresh buffers, is about 45 % of the client's CPU (measured in
 * docs/benchmarks.md). {@link #ofByteArrayNoCopy} hands out read-only views of the caller's array
 * instead, at the price of a contract: the array must not change while a request using it is sent.
 */
public final class RingBodyPublishers {

    /** Bytes per item: the JDK's own item size, and one HTTP/2 DATA frame at the default frame size. */
    static final int SLICE_BYTES = 16 * 1024;

    private RingBodyPublishers() {
    }

    /**
     * A publisher of {@code bytes} that does not copy them: each item is a read-only view of a
     * part of the array. The array must not be written to until every response of the requests
     * that carry this publisher has arrived (a retry or a redirect subscribes again and reads the
     * array again); otherwise the body sent may mix old and new bytes.
     */
    public static BodyPublisher ofByteArrayNoCopy(byte[] bytes) {
        return ofByteArrayNoCopy(bytes, 0, bytes.length);
    }

    /**
     * As {@link #ofByteArrayNoCopy(byte[])}, for {@code length} bytes from {@code offset}.
     *
     * @throws IndexOutOfBoundsException if the range is not inside the array
     */
    public static BodyPublisher ofByteArrayNoCopy(byte[] bytes, int offset, int length) {
        Objects.requireNonNull(bytes, "bytes");
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return new ArrayViewPublisher(bytes, offset, length);
    }

    /**
     * Publishes views of one array range; every subscription starts from the range's beginning,
     * so a request carrying it may be sent again after a stale pooled connection, as with the
     * JDK's {@code ofByteArray}.
     */
    private record ArrayViewPublisher(byte[] bytes, int offset, int length) implements Resubscribable {
        @Override
        public long contentLength() {
            return length;
        }

        @Override
        public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
            Objects.requireNonNull(subscriber, "subscriber");
            subscriber.onSubscribe(new ViewSubscription(subscriber, bytes, offset, offset + length));
        }
    }

    /**
     * Delivers on the thread that asks: {@code request(n)} runs the delivery loop unless another
     * call is in it already, in which case it only adds demand and that call's loop delivers it.
     * So a request from inside {@code onNext} does not recurse, and calls from several threads
     * never signal the subscriber concurrently (Reactive Streams rules 1.3 and 3.3).
     */
    private static final class ViewSubscription implements Flow.Subscription {
        private final Flow.Subscriber<? super ByteBuffer> subscriber;
        private final byte[] bytes;
        private final int end;
        private final AtomicLong demand = new AtomicLong();
        /** Calls that want the loop to run; the one that raised it from zero runs it. */
        private final AtomicInteger pendingDrains = new AtomicInteger();
        private volatile boolean cancelled;
        private volatile IllegalArgumentException badRequest;
        /** Owned by the thread in the delivery loop. */
        private int position;

        ViewSubscription(Flow.Subscriber<? super ByteBuffer> subscriber, byte[] bytes, int start, int end) {
            this.subscriber = subscriber;
            this.bytes = bytes;
            this.position = start;
            this.end = end;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                badRequest = new IllegalArgumentException("non-positive request " + n + " (Reactive Streams rule 3.9)");
            } else {
                demand.getAndAccumulate(n, (current, add) -> current + add < 0 ? Long.MAX_VALUE : current + add);
            }
            drain();
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        private void drain() {
            if (pendingDrains.getAndIncrement() != 0) {
                return;
            }
            int missed = 1;
            do {
                if (!deliver()) {
                    return; // terminated: later calls find cancelled set and deliver nothing
                }
                missed = pendingDrains.addAndGet(-missed);
            } while (missed != 0);
        }

        /** Delivers what the demand allows; false once the subscription is over. */
        private boolean deliver() {
            while (!cancelled) {
                IllegalArgumentException bad = badRequest;
                if (bad != null) {
                    cancelled = true;
                    subscriber.onError(bad);
                    return false;
                }
                if (position == end) {
                    cancelled = true;
                    subscriber.onComplete();
                    return false;
                }
                if (demand.get() == 0) {
                    return true;
                }
                demand.decrementAndGet();
                int size = Math.min(SLICE_BYTES, end - position);
                ByteBuffer view = ByteBuffer.wrap(bytes, position, size).slice().asReadOnlyBuffer();
                position += size;
                subscriber.onNext(view);
            }
            return false;
        }
    }
}
