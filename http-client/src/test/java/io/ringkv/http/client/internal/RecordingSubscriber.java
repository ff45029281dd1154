package io.ringkv.http.client.internal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A body subscriber for the pipe's state and race tests: counts every signal, so that a test can
 * tell one terminal signal from two, and a signal after the end from none. Requests nothing by
 * itself unless built with an initial demand.
 *
 * <p>Threading: signals from whichever thread the pipe delivers on; every count is atomic, so a
 * test thread reads them once the pipe is quiet.
 */
final class RecordingSubscriber implements Flow.Subscriber<List<ByteBuffer>> {
    final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
    final CountDownLatch subscribed = new CountDownLatch(1);
    final AtomicInteger onSubscribes = new AtomicInteger();
    final AtomicInteger items = new AtomicInteger();
    final AtomicLong bytes = new AtomicLong();
    final AtomicInteger completions = new AtomicInteger();
    final AtomicInteger errors = new AtomicInteger();
    final AtomicReference<Throwable> firstError = new AtomicReference<>();
    /** Signals that came after a terminal one (Reactive Streams §1.7 forbids any). */
    final AtomicInteger afterEnd = new AtomicInteger();
    private final long initialDemand;

    RecordingSubscriber() {
        this(0);
    }

    /** @param initialDemand requested in {@code onSubscribe}; 0 for none */
    RecordingSubscriber(long initialDemand) {
        this.initialDemand = initialDemand;
    }

    int terminals() {
        return completions.get() + errors.get();
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        onSubscribes.incrementAndGet();
        subscription.set(s);
        subscribed.countDown();
        if (initialDemand > 0) {
            s.request(initialDemand);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
        noteIfEnded();
        items.incrementAndGet();
        item.forEach(buffer -> bytes.addAndGet(buffer.remaining()));
    }

    @Override
    public void onError(Throwable throwable) {
        noteIfEnded();
        firstError.compareAndSet(null, throwable);
        errors.incrementAndGet();
    }

    @Override
    public void onComplete() {
        noteIfEnded();
        completions.incrementAndGet();
    }

    private void noteIfEnded() {
        if (terminals() > 0) {
            afterEnd.incrementAndGet();
        }
    }
}
