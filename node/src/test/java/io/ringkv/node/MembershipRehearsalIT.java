package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The training run's membership change ({@link MembershipRehearsal}) on a real scratch cluster
 * under the warm-up's load: a fourth node joins, stops, is replaced, and its replacement leaves; no
 * request of the load (to the first three nodes) fails meanwhile.
 */
class MembershipRehearsalIT {

    @Test
    void aNodeJoinsIsReplacedAndItsReplacementLeavesWhileTheLoadRuns() throws Exception {
        try (ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad load = new MixedLoad(scratch.urls());
            MembershipRehearsal steps = MembershipRehearsal.start(scratch, Duration.ofMillis(500));
            try {
                load.run(MembershipRehearsal.STEPS_MAX.plusSeconds(10), steps::ended);
            } finally {
                steps.stop();
            }
            assertThat(steps.outcome(), startsWith("a node joined, was replaced, and its replacement left"));
            assertThat(load.answered(), greaterThan(0L));
            assertThat("requests failed during the steps", load.failed(), is(0L));
            // The three first nodes serve on after the others have gone.
            MixedLoad after = new MixedLoad(scratch.urls());
            after.run(Duration.ofMinutes(1), () -> after.answered() >= 200);
            assertThat(after.failed(), is(0L));
        }
    }
}
