package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BodyPipeTest {
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final AtomicInteger resumes = new AtomicInteger();
    private final AtomicInteger cancels = new AtomicInteger();
    private final BodyPipe pipe = new BodyPipe(executor, new BodyPipe.Producer() {
        @Override
        public void resume() {
            resumes.incrementAndGet();
        }

        @Override
        public void cancel() {
            cancels.incrementAndGet();
        }
    });

    @AfterEach
    void stop() throws InterruptedException {
        executor.shutdown();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS), is(true));
    }

    @Test
    void deliversNothingWithoutDemandAndPausesTheProducerWhenFull() {
        Recorder recorder = new Recorder();
        pipe.subscribe(recorder);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> recorder.subscription.get() != null);
        pipe.offer(ByteBuffer.allocate((int) BodyPipe.QUEUED_BYTES_MAX));
        assertThat(pipe.wantsMore(), is(false));
        assertThat(recorder.items.get(), is(0));

        recorder.subscription.get().request(1);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> recorder.items.get() == 1);
        assertThat(recorder.bytes.get(), is(BodyPipe.QUEUED_BYTES_MAX));
        assertThat(resumes.get(), is(1));
    }

    @Test
    void completesAfterTheQueuedDataIsTaken() {
        Recorder recorder = new Recorder();
        pipe.offer(ByteBuffer.allocate(10));
        pipe.complete();
        pipe.subscribe(recorder);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> recorder.subscription.get() != null);
        assertThat(recorder.completed.get(), is(false));
        recorder.subscription.get().request(1);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(recorder.completed::get);
        assertThat(recorder.bytes.get(), is(10L));
    }

    @Test
    void failureAfterNormalEndIsIgnored() {
        Recorder recorder = new Recorder();
        pipe.complete();
        pipe.fail(new java.io.IOException("connection closed later"));
        pipe.subscribe(recorder);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(recorder.completed::get);
        assertThat(recorder.error.get() == null, is(true));
    }

    @Test
    void rs_3_9_nonPositiveRequestFailsWithIllegalArgumentAndCancelsTheProducer() {
        Recorder recorder = new Recorder();
        pipe.subscribe(recorder);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> recorder.subscription.get() != null);
        recorder.subscription.get().request(0);
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> recorder.error.get() != null);
        assertThat(recorder.error.get(), instanceOf(IllegalArgumentException.class));
        assertThat(cancels.get(), is(1));
    }

    static final class Recorder implements Flow.Subscriber<List<ByteBuffer>> {
        final AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        final AtomicInteger items = new AtomicInteger();
        final AtomicLong bytes = new AtomicLong();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final java.util.concurrent.atomic.AtomicBoolean completed = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription.set(s);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            items.incrementAndGet();
            item.forEach(buffer -> bytes.addAndGet(buffer.remaining()));
        }

        @Override
        public void onError(Throwable throwable) {
            error.set(throwable);
        }

        @Override
        public void onComplete() {
            completed.set(true);
        }
    }
}
