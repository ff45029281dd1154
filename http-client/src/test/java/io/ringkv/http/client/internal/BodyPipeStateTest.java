package io.ringkv.http.client.internal;

import static io.ringkv.http.client.internal.PipeState.CANCELLED_COMPLETED;
import static io.ringkv.http.client.internal.PipeState.CANCELLED_FAILED;
import static io.ringkv.http.client.internal.PipeState.CANCELLED_OPEN;
import static io.ringkv.http.client.internal.PipeState.SUBSCRIBED_COMPLETED;
import static io.ringkv.http.client.internal.PipeState.SUBSCRIBED_FAILED;
import static io.ringkv.http.client.internal.PipeState.SUBSCRIBED_OPEN;
import static io.ringkv.http.client.internal.PipeState.TERMINATED_COMPLETED;
import static io.ringkv.http.client.internal.PipeState.TERMINATED_FAILED;
import static io.ringkv.http.client.internal.PipeState.TERMINATED_OPEN;
import static io.ringkv.http.client.internal.PipeState.UNSUBSCRIBED_COMPLETED;
import static io.ringkv.http.client.internal.PipeState.UNSUBSCRIBED_FAILED;
import static io.ringkv.http.client.internal.PipeState.UNSUBSCRIBED_OPEN;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.sameInstance;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.internal.PipeState.Consumer;
import io.ringkv.http.client.internal.PipeState.Production;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link BodyPipe}'s lifecycle as a state machine: which transitions {@link BodyPipe#move} takes
 * and refuses, and which call of the pipe makes each one.
 */
class BodyPipeStateTest {
    /** The diagram in {@link PipeState}'s javadoc, written out by hand: every legal step. */
    private static final Set<List<PipeState>> LEGAL = Set.of(
            // the producer ends the body, whatever the consumer's side
            List.of(UNSUBSCRIBED_OPEN, UNSUBSCRIBED_COMPLETED), List.of(UNSUBSCRIBED_OPEN, UNSUBSCRIBED_FAILED),
            List.of(SUBSCRIBED_OPEN, SUBSCRIBED_COMPLETED), List.of(SUBSCRIBED_OPEN, SUBSCRIBED_FAILED),
            List.of(CANCELLED_OPEN, CANCELLED_COMPLETED), List.of(CANCELLED_OPEN, CANCELLED_FAILED),
            List.of(TERMINATED_OPEN, TERMINATED_COMPLETED), List.of(TERMINATED_OPEN, TERMINATED_FAILED),
            // subscribe, whatever the producer's side
            List.of(UNSUBSCRIBED_OPEN, SUBSCRIBED_OPEN), List.of(UNSUBSCRIBED_COMPLETED, SUBSCRIBED_COMPLETED),
            List.of(UNSUBSCRIBED_FAILED, SUBSCRIBED_FAILED),
            // cancel
            List.of(SUBSCRIBED_OPEN, CANCELLED_OPEN), List.of(SUBSCRIBED_COMPLETED, CANCELLED_COMPLETED),
            List.of(SUBSCRIBED_FAILED, CANCELLED_FAILED),
            // the drain's last step: after the end of the body, or after a cancel
            List.of(SUBSCRIBED_COMPLETED, TERMINATED_COMPLETED), List.of(SUBSCRIBED_FAILED, TERMINATED_FAILED),
            List.of(CANCELLED_OPEN, TERMINATED_OPEN), List.of(CANCELLED_COMPLETED, TERMINATED_COMPLETED),
            List.of(CANCELLED_FAILED, TERMINATED_FAILED));

    static Stream<List<PipeState>> legalSteps() {
        return LEGAL.stream().sorted((a, b) -> a.toString().compareTo(b.toString()));
    }

    @Test
    void eachPairOfSidesHasItsOwnState() {
        for (PipeState state : PipeState.values()) {
            assertThat(PipeState.of(state.consumer, state.production), sameInstance(state));
        }
        assertThat(PipeState.values().length, is(Consumer.values().length * Production.values().length));
    }

    @Test
    void everyStepTheDiagramLacksIsRefusedNamingBothStates() {
        int refused = 0;
        for (PipeState from : PipeState.values()) {
            for (PipeState to : PipeState.values()) {
                if (LEGAL.contains(List.of(from, to))) {
                    continue;
                }
                BodyPipe pipe = reachByMoves(from);
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> pipe.move(from, to),
                        from + " -> " + to);
                assertThat(e.getMessage(), containsString("from " + from + " to " + to));
                assertThat("a refused step leaves the state alone", pipe.state(), is(from));
                refused++;
            }
        }
        assertThat(refused, is(12 * 12 - LEGAL.size()));
    }

    @ParameterizedTest
    @MethodSource("legalSteps")
    void everyLegalStepMovesOnlyAPipeThatIsStillInItsFromState(List<PipeState> step) {
        PipeState from = step.get(0);
        PipeState to = step.get(1);
        BodyPipe pipe = reachByMoves(from);
        assertThat(pipe.move(from, to), is(true));
        assertThat(pipe.state(), is(to));
        assertThat("a pipe that moved on is not moved again", pipe.move(from, to), is(false));
        assertThat(pipe.state(), is(to));
    }

    @ParameterizedTest
    @MethodSource("legalSteps")
    void everyLegalStepIsMadeByTheCallThatOwnsIt(List<PipeState> step) {
        PipeState from = step.get(0);
        PipeState to = step.get(1);
        Fixture fixture = Fixture.at(from);
        assertThat("set-up", fixture.pipe.state(), is(from));
        int terminalsBefore = fixture.subscriber.terminals();

        fixture.take(from, to);

        assertThat(fixture.pipe.state(), is(to));
        RecordingSubscriber subscriber = fixture.subscriber;
        if (to.consumer == Consumer.TERMINATED && from.consumer == Consumer.SUBSCRIBED) {
            assertThat("the step after the end delivers the end", subscriber.terminals(), is(1));
            assertThat("every queued byte first", subscriber.bytes.get(), is(1L));
            if (to.production == Production.FAILED) {
                assertThat(subscriber.firstError.get(), sameInstance(Fixture.FAILURE));
            } else {
                assertThat(subscriber.completions.get(), is(1));
            }
        } else {
            assertThat("only the drain's step after the end signals an end", subscriber.terminals(),
                    is(terminalsBefore));
        }
        boolean cancelled = to.consumer == Consumer.CANCELLED
                || (to.consumer == Consumer.TERMINATED && from.consumer != Consumer.SUBSCRIBED);
        assertThat("the producer hears of a cancel once", fixture.producer.cancels.get(), is(cancelled ? 1 : 0));
        assertThat(fixture.pipe.isDone(), is(to.ended()));
        assertThat(subscriber.afterEnd.get(), is(0));
    }

    @Test
    void aSecondSubscriberIsRefusedAndTheFirstKeepsTheBody() {
        Fixture fixture = Fixture.at(SUBSCRIBED_OPEN);
        RecordingSubscriber second = new RecordingSubscriber(Long.MAX_VALUE);
        assertThrows(IllegalStateException.class, () -> fixture.pipe.subscribe(second));
        fixture.pipe.complete();
        fixture.subscriber.subscription.get().request(1);
        fixture.runAll();
        assertThat(fixture.subscriber.completions.get(), is(1));
        assertThat(fixture.subscriber.bytes.get(), is(1L));
        assertThat(second.onSubscribes.get(), is(0));
    }

    @Test
    void aCancelAfterTheEndWasSignalledIsANoOp() {
        Fixture fixture = Fixture.at(SUBSCRIBED_OPEN);
        fixture.pipe.complete();
        fixture.subscriber.subscription.get().request(1);
        fixture.runAll();
        assertThat(fixture.pipe.state(), is(TERMINATED_COMPLETED));

        fixture.subscriber.subscription.get().cancel(); // Reactive Streams §1.6, §3.7
        fixture.subscriber.subscription.get().request(0); // §3.6: no error after the end either
        fixture.runAll();
        assertThat(fixture.producer.cancels.get(), is(0));
        assertThat(fixture.pipe.state(), is(TERMINATED_COMPLETED));
        assertThat(fixture.subscriber.terminals(), is(1));
        assertThat(fixture.subscriber.afterEnd.get(), is(0));
    }

    @Test
    void aSecondCancelAndANonPositiveRequestAfterACancelAreNoOps() {
        Fixture fixture = Fixture.at(SUBSCRIBED_OPEN);
        fixture.subscriber.subscription.get().cancel();
        fixture.subscriber.subscription.get().cancel();
        fixture.subscriber.subscription.get().request(-1);
        fixture.runAll();
        assertThat(fixture.producer.cancels.get(), is(1));
        assertThat(fixture.pipe.state(), is(TERMINATED_OPEN));
        assertThat("a cancelled subscriber hears nothing more", fixture.subscriber.terminals(), is(0));
    }

    @Test
    void aNonPositiveRequestCancelsWithTheErrorItOwes() {
        Fixture fixture = Fixture.at(SUBSCRIBED_OPEN);
        fixture.subscriber.subscription.get().request(0);
        assertThat(fixture.pipe.state(), is(CANCELLED_OPEN));
        fixture.runAll();
        assertThat(fixture.pipe.state(), is(TERMINATED_OPEN));
        assertThat(fixture.subscriber.errors.get(), is(1));
        assertThat(fixture.subscriber.firstError.get(), instanceOf(IllegalArgumentException.class));
        assertThat(fixture.producer.cancels.get(), is(1));
    }

    @Test
    void theFirstEndOfTheBodyIsTheOneSignalled() {
        Fixture failedTwice = Fixture.at(SUBSCRIBED_OPEN);
        failedTwice.pipe.fail(Fixture.FAILURE);
        failedTwice.pipe.fail(new IOException("a later failure"));
        failedTwice.pipe.complete();
        failedTwice.subscriber.subscription.get().request(1);
        failedTwice.runAll();
        assertThat(failedTwice.pipe.state(), is(TERMINATED_FAILED));
        assertThat(failedTwice.subscriber.firstError.get(), sameInstance(Fixture.FAILURE));
        assertThat(failedTwice.subscriber.terminals(), is(1));

        Fixture completedThenFailed = Fixture.at(SUBSCRIBED_OPEN);
        completedThenFailed.pipe.complete();
        completedThenFailed.pipe.fail(Fixture.FAILURE);
        completedThenFailed.subscriber.subscription.get().request(1);
        completedThenFailed.runAll();
        assertThat(completedThenFailed.pipe.state(), is(TERMINATED_COMPLETED));
        assertThat(completedThenFailed.subscriber.completions.get(), is(1));
        assertThat(completedThenFailed.subscriber.terminals(), is(1));
    }

    /** A pipe brought to {@code target} by legal moves alone, from the initial state. */
    private static BodyPipe reachByMoves(PipeState target) {
        BodyPipe pipe = new BodyPipe(Runnable::run, new BodyPipeTest.CountingProducer());
        List<PipeState> path = new ArrayList<>();
        path.add(PipeState.UNSUBSCRIBED_OPEN);
        if (target.production != Production.OPEN) {
            path.add(PipeState.of(Consumer.UNSUBSCRIBED, target.production));
        }
        Consumer[] route = switch (target.consumer) {
            case UNSUBSCRIBED -> new Consumer[0];
            case SUBSCRIBED -> new Consumer[] {Consumer.SUBSCRIBED};
            case CANCELLED -> new Consumer[] {Consumer.SUBSCRIBED, Consumer.CANCELLED};
            case TERMINATED -> new Consumer[] {Consumer.SUBSCRIBED, Consumer.CANCELLED, Consumer.TERMINATED};
        };
        for (Consumer next : route) {
            path.add(PipeState.of(next, target.production));
        }
        for (int i = 1; i < path.size(); i++) {
            assertThat(pipe.move(path.get(i - 1), path.get(i)), is(true));
        }
        assertThat(pipe.state(), is(target));
        return pipe;
    }

    /**
     * A pipe brought to a state by its own calls, with one byte queued (so that an ended body is
     * not signalled before its subscriber asks) and an executor that only collects tasks: the
     * drain runs when the test says, except inline in {@code subscribe} from this thread.
     */
    private static final class Fixture {
        static final IOException FAILURE = new IOException("the connection broke");

        final Queue<Runnable> pending = new ConcurrentLinkedQueue<>();
        final BodyPipeTest.CountingProducer producer = new BodyPipeTest.CountingProducer();
        final BodyPipe pipe = new BodyPipe(pending::add, producer);
        final RecordingSubscriber subscriber = new RecordingSubscriber();

        static Fixture at(PipeState state) {
            Fixture fixture = new Fixture();
            fixture.pipe.offer(ByteBuffer.allocate(1));
            if (state.consumer != Consumer.UNSUBSCRIBED) {
                fixture.pipe.subscribe(fixture.subscriber);
            }
            if (state.consumer == Consumer.CANCELLED || state.consumer == Consumer.TERMINATED) {
                fixture.subscriber.subscription.get().cancel();
            }
            if (state.consumer == Consumer.TERMINATED) {
                fixture.runAll();
            }
            fixture.end(state.production);
            return fixture;
        }

        /** Makes the step {@code from → to} the way the pipe's users do. */
        void take(PipeState from, PipeState to) {
            if (from.consumer == to.consumer) {
                end(to.production);
                return;
            }
            switch (to.consumer) {
                case SUBSCRIBED -> pipe.subscribe(subscriber);
                case CANCELLED -> subscriber.subscription.get().cancel();
                case TERMINATED -> {
                    subscriber.subscription.get().request(1);
                    runAll();
                }
                default -> throw new AssertionError(from + " -> " + to);
            }
        }

        void end(Production how) {
            switch (how) {
                case COMPLETED -> pipe.complete();
                case FAILED -> pipe.fail(FAILURE);
                case OPEN -> {
                }
            }
        }

        void runAll() {
            for (Runnable task; (task = pending.poll()) != null; ) {
                task.run();
            }
        }
    }
}
