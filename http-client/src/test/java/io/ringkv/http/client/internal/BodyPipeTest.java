package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

    /**
     * A pipe whose executor only collects tasks ({@code runAll} decides when the subscriber runs),
     * with a subscriber of unbounded demand attached.
     */
    private record Batched(java.util.Queue<Runnable> pending, BodyPipe pipe, Recorder recorder) {
        static Batched create() {
            java.util.Queue<Runnable> pending = new java.util.concurrent.ConcurrentLinkedQueue<>();
            BodyPipe pipe = new BodyPipe(pending::add, new CountingProducer());
            Recorder recorder = new Recorder();
            pipe.subscribe(recorder); // from a test thread: onSubscribe runs inline
            recorder.subscription.get().request(Long.MAX_VALUE);
            return new Batched(pending, pipe, recorder);
        }

        void runAll() {
            for (Runnable task; (task = pending.poll()) != null; ) {
                task.run();
            }
        }
    }

    /** Runs {@code task} on an event loop, then waits until the loop has run every task it queued before. */
    private static void onALoopAndAfter(Runnable task) throws Exception {
        try (io.ringkv.net.EventLoopGroup group = new io.ringkv.net.EventLoopGroup(1, "pipe-test")) {
            io.ringkv.net.EventLoop loop = group.next();
            loop.execute(task);
            java.util.concurrent.CompletableFuture<Void> after = new java.util.concurrent.CompletableFuture<>();
            loop.execute(() -> loop.execute(() -> after.complete(null)));
            after.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void piecesOfferedOnAnEventLoopAreSignalledOnceAfterTheLoopsIteration() throws Exception {
        Batched batched = Batched.create();
        AtomicInteger itemsDuringTheReads = new AtomicInteger(-1);
        onALoopAndAfter(() -> {
            for (int i = 0; i < 3; i++) {
                batched.pipe().offer(ByteBuffer.allocate(10));
                batched.runAll(); // a consumer that keeps up takes whatever it was told of
            }
            itemsDuringTheReads.set(batched.recorder().items.get());
        });
        assertThat(itemsDuringTheReads.get(), is(0));
        assertThat(batched.pending().size(), is(1));
        batched.runAll();
        assertThat(batched.recorder().items.get(), is(1));
        assertThat(batched.recorder().bytes.get(), is(30L));
    }

    @Test
    void anEndOnTheLoopIsSignalledAtOnceAndTheDeferredSignalThenAddsNoWakeUp() throws Exception {
        Batched batched = Batched.create();
        AtomicInteger tasksAtTheEnd = new AtomicInteger(-1);
        onALoopAndAfter(() -> {
            batched.pipe().offer(ByteBuffer.allocate(10));
            batched.pipe().offer(ByteBuffer.allocate(5));
            batched.pipe().complete();
            tasksAtTheEnd.set(batched.pending().size());
            batched.runAll();
        });
        assertThat(tasksAtTheEnd.get(), is(1));
        assertThat(batched.pending().isEmpty(), is(true));
        assertThat(batched.recorder().items.get(), is(1));
        assertThat(batched.recorder().bytes.get(), is(15L));
        assertThat(batched.recorder().completed.get(), is(true));
    }

    @Test
    void aCopyingSubscriberTakesTheQueueInOrderThenEachPieceAsItIsOffered() throws Exception {
        CountingProducer producer = new CountingProducer();
        AtomicLong credited = producer.credited;
        AtomicInteger resumed = producer.resumed;
        BodyPipe copying = new BodyPipe(Runnable::run, producer);
        byte[] early = new byte[(int) BodyPipe.QUEUED_BYTES_MAX];
        java.util.Arrays.fill(early, (byte) 1);
        copying.offer(ByteBuffer.wrap(early));
        assertThat("a full queue pauses the producer", copying.wantsMore(), is(false));
        assertThat(copying.copiesOnArrival(), is(false));

        ByteArrayBody subscriber = new ByteArrayBody(-1);
        copying.subscribe(subscriber);
        assertThat(copying.copiesOnArrival(), is(true));
        assertThat("taking the queue over resumes the producer", resumed.get(), is(1));
        ByteBuffer late = ByteBuffer.wrap(new byte[] {2, 3, 4});
        copying.offer(late);
        assertThat("copied before offer returned", late.hasRemaining(), is(false));
        late.put(0, (byte) 9); // the producer reuses its buffer: the body must not change
        assertThat(copying.wantsMore(), is(true));
        copying.complete();

        byte[] body = subscriber.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(body.length, is(early.length + 3));
        assertThat(java.util.Arrays.copyOfRange(body, early.length - 1, body.length), is(new byte[] {1, 2, 3, 4}));
        assertThat(credited.get(), is((long) body.length));
    }

    @Test
    void aCopierAttachedByTheProducerTakesPiecesBeforeTheApplicationSubscribes() throws Exception {
        CountingProducer producer = new CountingProducer();
        AtomicLong credited = producer.credited;
        BodyPipe pipe = new BodyPipe(Runnable::run, producer);
        ByteArrayBody array = new ByteArrayBody(6);
        pipe.copyFromNowOn(array);
        assertThat(pipe.arrayBody() == array, is(true));

        ByteBuffer read = ByteBuffer.wrap(new byte[] {1, 2, 3});
        pipe.offer(read);
        assertThat("copied before offer returned", read.hasRemaining(), is(false));
        assertThat("credited on arrival, with nobody subscribed", credited.get(), is(3L));
        read.clear().put(new byte[] {4, 5, 6}).flip(); // the producer reuses its read buffer
        pipe.offer(read);
        pipe.complete();
        assertThat("nothing signalled before the subscriber comes", array.getBody().toCompletableFuture().isDone(),
                is(false));

        Recorder discarding = new Recorder();
        BodyPipe other = new BodyPipe(Runnable::run, new CountingProducer());
        other.copyFromNowOn(new ByteArrayBody(-1));
        other.offer(ByteBuffer.wrap(new byte[] {7}));
        other.complete();
        other.subscribe(discarding);
        assertThat("a discarding subscriber sees the end only", discarding.completed.get(), is(true));
        assertThat(discarding.bytes.get(), is(0L));
        assertThrows(IllegalStateException.class, () -> other.subscribe(new ByteArrayBody(-1)));

        pipe.subscribe(array);
        assertThat(array.getBody().toCompletableFuture().get(5, TimeUnit.SECONDS), is(new byte[] {1, 2, 3, 4, 5, 6}));
    }

    /** A producer that counts what the pipe tells it: resumes, cancels and credited bytes. */
    static final class CountingProducer implements BodyPipe.Producer {
        final AtomicInteger resumed = new AtomicInteger();
        final AtomicInteger cancels = new AtomicInteger();
        final AtomicLong credited = new AtomicLong();

        @Override
        public void resume() {
            resumed.incrementAndGet();
        }

        @Override
        public void cancel() {
            cancels.incrementAndGet();
        }

        @Override
        public void taken(long bytes) {
            credited.addAndGet(bytes);
        }
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
