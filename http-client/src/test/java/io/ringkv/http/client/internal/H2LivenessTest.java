package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The PING schedule as a pure function of time (nanoseconds; interval 30, timeout 10 units). */
class H2LivenessTest {
    private static final long S = 1_000_000_000L;
    private final H2Liveness liveness = new H2Liveness(Duration.ofSeconds(30), Duration.ofSeconds(10));

    @Test
    void waitsForTheIntervalFromTheLastRead() {
        assertThat(liveness.start(0), is(30 * S));
        liveness.onRead(20 * S);
        assertThat(liveness.check(30 * S), is(new H2Liveness.Decision(H2Liveness.Action.NONE, 20 * S)));
    }

    @Test
    void pingsAfterAQuietIntervalAndClosesWhenNothingAnswers() {
        liveness.start(0);
        assertThat(liveness.check(30 * S), is(new H2Liveness.Decision(H2Liveness.Action.PING, 10 * S)));
        assertThat(liveness.check(35 * S), is(new H2Liveness.Decision(H2Liveness.Action.NONE, 5 * S)));
        assertThat(liveness.check(40 * S).action(), is(H2Liveness.Action.CLOSE));
    }

    @Test
    void anAnswerClearsTheOutstandingPing() {
        liveness.start(0);
        liveness.check(30 * S);
        liveness.onRead(31 * S);
        assertThat(liveness.check(40 * S), is(new H2Liveness.Decision(H2Liveness.Action.NONE, 21 * S)));
        assertThat(liveness.check(61 * S).action(), is(H2Liveness.Action.PING));
    }

    @Test
    void zeroIntervalDisablesProbing() {
        assertThat(new H2Liveness(Duration.ZERO, Duration.ofSeconds(1)).enabled(), is(false));
    }
}
