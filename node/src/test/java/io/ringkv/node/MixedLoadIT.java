package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's load against a real scratch cluster: the closed loop stops soon after it is told
 * to, and a trickle never sends faster than its rate (however slow or fast the machine).
 */
class MixedLoadIT {

    @Test
    void theClosedLoopStopsSoonAfterItIsToldTo() throws Exception {
        try (ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad load = new MixedLoad(scratch.urls());
            load.run(Duration.ofMinutes(2), () -> load.answered() >= 500);
            assertThat(load.failed(), is(0L));
            assertThat(load.answered(), greaterThanOrEqualTo(500L));
            // It asks every 64 requests, and up to 48 are in flight when it stops sending.
            assertThat(load.answered(), lessThanOrEqualTo(500L + 64 + 48));
        }
    }

    @Test
    void aTrickleSendsNoFasterThanItsRate() throws Exception {
        try (ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad load = new MixedLoad(scratch.urls());
            long began = System.nanoTime();
            load.trickle(Duration.ofSeconds(2), 50, () -> false);
            double seconds = (System.nanoTime() - began) / 1e9;
            long sent = load.answered() + load.failed();
            assertThat(load.failed(), is(0L));
            assertThat(sent, greaterThan(0L));
            // Request n leaves no earlier than n / rate seconds after the start.
            assertThat("sent " + sent + " in " + seconds + " s", sent, lessThanOrEqualTo((long) (seconds * 50) + 1));
        }
    }

    @Test
    void aTrickleStopsWhenTold() throws Exception {
        try (ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad load = new MixedLoad(scratch.urls());
            load.trickle(Duration.ofMinutes(2), 1_000, () -> load.answered() >= 100);
            assertThat(load.answered(), greaterThanOrEqualTo(100L));
            assertThat(load.answered(), lessThanOrEqualTo(100L + 64 + 48));
        }
    }
}
