package io.ringkv.http.client;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest.BodyPublisher;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The Flow contract of {@link RingBodyPublishers#ofByteArrayNoCopy}, without a network. */
class RingBodyPublishersTest {

    /** Records every signal; asks for nothing unless told to. */
    static class Recorder implements Flow.Subscriber<ByteBuffer> {
        final List<ByteBuffer> items = new ArrayList<>();
        final List<String> signals = new ArrayList<>();
        volatile Flow.Subscription subscription;
        volatile Throwable error;
        final CountDownLatch done = new CountDownLatch(1);

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            signals.add("subscribe");
        }

        @Override
        public void onNext(ByteBuffer item) {
            items.add(item);
            signals.add("next");
        }

        @Override
        public void onError(Throwable throwable) {
            error = throwable;
            signals.add("error");
            done.countDown();
        }

        @Override
        public void onComplete() {
            signals.add("complete");
            done.countDown();
        }

        byte[] bytes() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (ByteBuffer item : items) {
                ByteBuffer copy = item.duplicate();
                byte[] part = new byte[copy.remaining()];
                copy.get(part);
                out.writeBytes(part);
            }
            return out.toByteArray();
        }
    }

    @Test
    void deliversTheRangeInReadOnlyItemsOfAtMostSixteenKibibytes() {
        byte[] data = Bodies.pattern(100_000);
        BodyPublisher publisher = RingBodyPublishers.ofByteArrayNoCopy(data, 7, 90_000);
        assertThat(publisher.contentLength(), is(90_000L));
        Recorder recorder = new Recorder();
        publisher.subscribe(recorder);
        recorder.subscription.request(Long.MAX_VALUE);
        assertThat(recorder.bytes(), equalTo(Arrays.copyOfRange(data, 7, 90_007)));
        assertThat(recorder.items.size(), is(6)); // five of 16 KiB and the rest
        for (ByteBuffer item : recorder.items) {
            assertThat(item.isReadOnly(), is(true));
            assertThat(item.remaining(), lessThanOrEqualTo(16 * 1024));
        }
        assertThat(recorder.signals.getLast(), is("complete"));
    }

    @Test
    void itemsAreViewsOfTheArrayNotCopies() {
        byte[] data = new byte[10];
        Recorder recorder = new Recorder();
        RingBodyPublishers.ofByteArrayNoCopy(data).subscribe(recorder);
        recorder.subscription.request(1);
        data[4] = 42; // a copy made at subscribe or at delivery would not see this
        assertThat(recorder.items.getFirst().get(4), is((byte) 42));
    }

    @Test
    void deliversNoMoreThanAskedAndCompletesAfterTheLastItem() {
        Recorder recorder = new Recorder();
        RingBodyPublishers.ofByteArrayNoCopy(new byte[40 * 1024]).subscribe(recorder);
        assertThat(recorder.signals, contains("subscribe"));
        recorder.subscription.request(1);
        assertThat(recorder.signals, contains("subscribe", "next"));
        recorder.subscription.request(2);
        assertThat(recorder.signals, contains("subscribe", "next", "next", "next", "complete"));
    }

    @Test
    void anEmptyRangeCompletesOnTheFirstRequest() {
        Recorder recorder = new Recorder();
        RingBodyPublishers.ofByteArrayNoCopy(new byte[3], 3, 0).subscribe(recorder);
        recorder.subscription.request(1);
        assertThat(recorder.signals, contains("subscribe", "complete"));
    }

    @Test
    void aRequestFromInsideOnNextDoesNotRecurse() {
        AtomicInteger depth = new AtomicInteger();
        AtomicInteger deepest = new AtomicInteger();
        Recorder recorder = new Recorder() {
            @Override
            public void onNext(ByteBuffer item) {
                deepest.accumulateAndGet(depth.incrementAndGet(), Math::max);
                super.onNext(item);
                subscription.request(1);
                depth.decrementAndGet();
            }
        };
        RingBodyPublishers.ofByteArrayNoCopy(new byte[1024 * 1024]).subscribe(recorder);
        recorder.subscription.request(1);
        assertThat(recorder.items.size(), is(64));
        assertThat(recorder.signals.getLast(), is("complete"));
        assertThat("onNext nesting", deepest.get(), is(1));
    }

    @Test
    void aNonPositiveRequestEndsTheSubscriptionWithAnError() {
        Recorder recorder = new Recorder();
        RingBodyPublishers.ofByteArrayNoCopy(new byte[100]).subscribe(recorder);
        recorder.subscription.request(0);
        assertThat(recorder.error, instanceOf(IllegalArgumentException.class));
        recorder.subscription.request(1);
        assertThat(recorder.signals, contains("subscribe", "error"));
    }

    @Test
    void cancelStopsDelivery() {
        Recorder recorder = new Recorder() {
            @Override
            public void onNext(ByteBuffer item) {
                super.onNext(item);
                subscription.cancel();
            }
        };
        RingBodyPublishers.ofByteArrayNoCopy(new byte[100 * 1024]).subscribe(recorder);
        recorder.subscription.request(Long.MAX_VALUE);
        assertThat(recorder.signals, contains("subscribe", "next"));
    }

    @Test
    void everySubscriptionStartsFromTheBeginning() {
        byte[] data = Bodies.pattern(20_000);
        BodyPublisher publisher = RingBodyPublishers.ofByteArrayNoCopy(data);
        for (int i = 0; i < 2; i++) {
            Recorder recorder = new Recorder();
            publisher.subscribe(recorder);
            recorder.subscription.request(Long.MAX_VALUE);
            assertThat(recorder.bytes(), equalTo(data));
        }
    }

    @Test
    void requestsFromManyThreadsDeliverEveryItemOnceInOrderAndNeverConcurrently() throws Exception {
        byte[] data = Bodies.pattern(5_000_000);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        Recorder recorder = new Recorder() {
            @Override
            public void onNext(ByteBuffer item) {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                super.onNext(item);
                inside.decrementAndGet();
            }
        };
        RingBodyPublishers.ofByteArrayNoCopy(data).subscribe(recorder);
        int itemCount = (data.length + 16 * 1024 - 1) / (16 * 1024);
        List<Thread> threads = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < itemCount; i++) {
                    recorder.subscription.request(1);
                }
            });
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(recorder.done.await(30, TimeUnit.SECONDS), is(true));
        assertThat("concurrent onNext calls", overlaps.get(), is(0));
        assertThat(recorder.bytes(), equalTo(data));
        assertThat(recorder.signals.getLast(), is("complete"));
    }

    @Test
    void aRangeOutsideTheArrayIsRefused() {
        assertThrows(IndexOutOfBoundsException.class, () -> RingBodyPublishers.ofByteArrayNoCopy(new byte[10], 5, 6));
        assertThrows(IndexOutOfBoundsException.class, () -> RingBodyPublishers.ofByteArrayNoCopy(new byte[10], -1, 2));
        assertThrows(NullPointerException.class, () -> RingBodyPublishers.ofByteArrayNoCopy(null));
    }
}
