package io.ringkv.bench.client;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.Flow;

/**
 * A request body publisher as an application could write it: it hands out read-only slices of
 * its array (16 KiB each, like the JDK's buffers) instead of copying the array on every
 * subscribe as {@link HttpRequest.BodyPublishers#ofByteArray} does. The benchmark uses it to
 * show what that copy costs a {@code java.net.http} client (Jetty's own API wraps the array).
 * The array must not change while a request is sent.
 */
final class WrappingBodyPublisher implements HttpRequest.BodyPublisher {
    private static final int SLICE_BYTES = 16 * 1024;

    private final byte[] body;

    WrappingBodyPublisher(byte[] body) {
        this.body = body;
    }

    @Override
    public long contentLength() {
        return body.length;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
        subscriber.onSubscribe(new SliceSubscription(subscriber));
    }

    /** Delivers slices on the requesting thread; a request from inside onNext only adds demand. */
    private final class SliceSubscription implements Flow.Subscription {
        private final Flow.Subscriber<? super ByteBuffer> subscriber;
        private long demand;
        private int offset;
        private boolean delivering;
        private boolean done;

        SliceSubscription(Flow.Subscriber<? super ByteBuffer> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public synchronized void request(long n) {
            if (done) {
                return;
            }
            if (n <= 0) {
                done = true;
                subscriber.onError(new IllegalArgumentException("non-positive request " + n));
                return;
            }
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            if (delivering) {
                return; // the outer call's loop sees the new demand
            }
            delivering = true;
            try {
                while (!done && demand > 0 && offset < body.length) {
                    int length = Math.min(SLICE_BYTES, body.length - offset);
                    ByteBuffer slice = ByteBuffer.wrap(body, offset, length).slice().asReadOnlyBuffer();
                    offset += length;
                    demand--;
                    subscriber.onNext(slice);
                }
                if (!done && offset == body.length) {
                    done = true;
                    subscriber.onComplete();
                }
            } finally {
                delivering = false;
            }
        }

        @Override
        public synchronized void cancel() {
            done = true;
        }
    }
}
