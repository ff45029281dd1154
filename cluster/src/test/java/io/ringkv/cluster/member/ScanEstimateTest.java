package io.ringkv.cluster.member;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

class ScanEstimateTest {

    @Test
    void thePaceSinceTheFirstSampleGivesTheTimeLeft() {
        ScanEstimate estimate = new ScanEstimate();
        assertThat("the first sample only starts the clock", estimate.secondsLeft(10_000, 5_000, 100_000), is(-1L));
        // 10,000 records in 2 s since then: 85,000 left at 5,000 a second
        assertThat(estimate.secondsLeft(12_000, 15_000, 100_000), is(17L));
        assertThat("rounded up", estimate.secondsLeft(12_000, 15_001, 100_000), is(17L));
        assertThat("read past the store's estimate: nothing left", estimate.secondsLeft(13_000, 120_000, 100_000), is(0L));
    }

    @Test
    void unknownWithoutATotalOrAPace() {
        ScanEstimate estimate = new ScanEstimate();
        estimate.secondsLeft(0, 0, 1_000);
        assertThat("nothing read yet", estimate.secondsLeft(1_000, 0, 1_000), is(-1L));
        assertThat("no total", estimate.secondsLeft(2_000, 500, 0), is(-1L));
        assertThat("a run started over (its count went back)", new ScanEstimateAfter(500).secondsLeft(2_000, 100, 1_000), is(-1L));
    }

    @Test
    void theStatusCarriesTheTotalAndTheEstimate() {
        MembershipProgress progress = MembershipProgress.started("join", "streaming", 3, 1_000).moved(10, 10_240, 40, 100, 6);
        assertThat(progress.toJson(2_000), containsString("\"scanned\":40,\"toScan\":100,\"secondsLeft\":6"));
        assertThat(MembershipProgress.NONE.toJson(0), containsString("\"toScan\":0,\"secondsLeft\":-1"));
    }

    /** An estimate whose first sample saw {@code scanned} records at time 0. */
    private static final class ScanEstimateAfter {
        private final ScanEstimate estimate = new ScanEstimate();

        ScanEstimateAfter(long scanned) {
            estimate.secondsLeft(0, scanned, 1_000);
        }

        long secondsLeft(long nowMillis, long scanned, long toScan) {
            return estimate.secondsLeft(nowMillis, scanned, toScan);
        }
    }
}
