package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.sameInstance;

import io.ringkv.http.client.internal.PipeState.Consumer;
import io.ringkv.http.client.internal.PipeState.Production;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BodyPipe}'s lifecycle under races: the producer's end (normal, and a failure from an
 * aborting thread), the subscribe, the subscriber's requests and its cancel, each on a thread of
 * its own, started together, many rounds. Every round waits until all of them returned and the
 * pipe's executor ran what they queued, then checks what the subscriber heard: never two ends,
 * nothing after an end, and every byte before a normal end. Round counts bound the test; nothing
 * is timed.
 */
class BodyPipeRaceTest {
    private static final int ROUNDS = 2_000;
    private static final int PIECES = 4;
    private static final int PIECE_BYTES = 8;
    private static final IOException ABORTED = new IOException("aborted");

    private final ExecutorService actors = Executors.newFixedThreadPool(6);
    /** The client executor: one thread, so a task queued behind the round's drains runs after them. */
    private final ExecutorService clientExecutor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        actors.shutdownNow();
        clientExecutor.shutdownNow();
        assertThat(actors.awaitTermination(10, TimeUnit.SECONDS), is(true));
        assertThat(clientExecutor.awaitTermination(10, TimeUnit.SECONDS), is(true));
    }

    @Test
    void anEndRacingSubscribeAndRequestsIsSignalledExactlyOnceWithEveryByteBeforeANormalEnd() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Round r = new Round();
            r.run(r::produceAndComplete, r::abort, r::subscribe, r::requestStepwise);

            assertThat(r.subscriber.terminals(), is(1));
            r.assertConsistentEnd();
            assertThat(r.producer.cancels.get(), is(0));
        }
    }

    @Test
    void aCancelRacingTheEndEitherReachesTheProducerOrComesAfterTheEndNeverBothOrNeither() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Round r = new Round();
            r.run(r::produceAndComplete, r::abort, r::subscribe, r::requestStepwise,
                    () -> r.onceSubscribed().cancel());

            assertThat(r.subscriber.terminals(), lessThanOrEqualTo(1));
            assertThat(r.producer.cancels.get() + r.subscriber.terminals(), is(1));
            r.assertConsistentEnd();
        }
    }

    @Test
    void aNonPositiveRequestRacingTheEndIsSignalledExactlyOnce() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Round r = new Round();
            r.run(r::produceAndComplete, r::abort, r::subscribe, r::requestStepwise,
                    () -> r.onceSubscribed().request(0));

            assertThat(r.subscriber.terminals(), is(1));
            boolean refused = r.subscriber.firstError.get() instanceof IllegalArgumentException;
            assertThat("the producer hears of the cancel exactly when the subscriber hears of it",
                    r.producer.cancels.get(), is(refused ? 1 : 0));
            r.assertConsistentEnd();
        }
    }

    /** One pipe, its subscriber, and the moves that race on it. */
    private final class Round {
        final BodyPipeTest.CountingProducer producer = new BodyPipeTest.CountingProducer();
        final BodyPipe pipe = new BodyPipe(clientExecutor, producer);
        final RecordingSubscriber subscriber = new RecordingSubscriber();

        /** Starts every move at once on a thread of its own, waits for all, then for the drains they queued. */
        void run(Runnable... moves) throws Exception {
            CyclicBarrier start = new CyclicBarrier(moves.length);
            List<Future<?>> running = new ArrayList<>();
            for (Runnable move : moves) {
                running.add(actors.submit(() -> {
                    start.await();
                    move.run();
                    return null;
                }));
            }
            for (Future<?> move : running) {
                move.get(60, TimeUnit.SECONDS); // a move that threw fails the test here
            }
            clientExecutor.submit(() -> { }).get(60, TimeUnit.SECONDS);
            assertThat(subscriber.afterEnd.get(), is(0));
            assertThat(subscriber.onSubscribes.get(), is(1));
        }

        void produceAndComplete() {
            for (int i = 0; i < PIECES; i++) {
                pipe.offer(ByteBuffer.allocate(PIECE_BYTES));
            }
            pipe.complete();
        }

        void abort() {
            pipe.fail(ABORTED);
        }

        void subscribe() {
            pipe.subscribe(subscriber);
        }

        /** One item at a time: each {@code onNext} takes all queued, so one request per piece is enough. */
        void requestStepwise() {
            java.util.concurrent.Flow.Subscription subscription = onceSubscribed();
            for (int i = 0; i < PIECES; i++) {
                subscription.request(1);
            }
        }

        java.util.concurrent.Flow.Subscription onceSubscribed() {
            try {
                assertThat(subscriber.subscribed.await(60, TimeUnit.SECONDS), is(true));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            return subscriber.subscription.get();
        }

        /** The pipe ended as the subscriber heard, and a normal end came after every byte. */
        void assertConsistentEnd() {
            PipeState end = pipe.state();
            assertThat(end.consumer, is(Consumer.TERMINATED));
            assertThat("both producer moves ran", pipe.isDone(), is(true));
            if (subscriber.completions.get() == 1) {
                assertThat(end.production, is(Production.COMPLETED));
                assertThat("no byte lost", subscriber.bytes.get(), is((long) PIECES * PIECE_BYTES));
            } else if (subscriber.errors.get() == 1 && !(subscriber.firstError.get() instanceof IllegalArgumentException)) {
                assertThat(end.production, is(Production.FAILED));
                assertThat(subscriber.firstError.get(), sameInstance(ABORTED));
            } else if (subscriber.errors.get() == 1) {
                assertThat(subscriber.firstError.get(), instanceOf(IllegalArgumentException.class));
            }
        }
    }
}
