package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SpinPolicyTest {
    private static final Duration SPIN = Duration.ofNanos(50_000);

    @Test
    void neverSpinsWithoutASpareCpuOrWithoutADuration() {
        assertThat(new SpinPolicy(SPIN, 0).tryBegin(), is(false));
        assertThat(new SpinPolicy(Duration.ZERO, 4).tryBegin(), is(false));
    }

    @Test
    void letsNoMoreCallersSpinAtOnceThanAllowed() {
        SpinPolicy policy = new SpinPolicy(SPIN, 2);
        assertThat(policy.tryBegin(), is(true));
        assertThat(policy.tryBegin(), is(true));
        assertThat(policy.tryBegin(), is(false));
        policy.end(true);
        assertThat(policy.tryBegin(), is(true));
    }

    @Test
    void spinsThatTimeOutUseTheCreditUpAndThenOnlyProbesSpin() {
        SpinPolicy policy = new SpinPolicy(SPIN, 1);
        for (int i = 0; i < SpinPolicy.CREDIT_MAX / SpinPolicy.TIMEOUT_COST; i++) {
            assertThat(policy.tryBegin(), is(true));
            policy.end(false);
        }
        int refused = 0;
        while (!policy.tryBegin()) {
            refused++;
        }
        assertThat("waits refused before the probe", refused, is(SpinPolicy.PROBE_INTERVAL - 1));
        policy.end(false);
        assertThat("a failed probe leaves no credit", policy.tryBegin(), is(false));
    }

    @Test
    void aProbeThatFindsItsWorkResumesSpinning() {
        SpinPolicy policy = new SpinPolicy(SPIN, 1);
        for (int i = 0; i < SpinPolicy.CREDIT_MAX / SpinPolicy.TIMEOUT_COST; i++) {
            policy.tryBegin();
            policy.end(false);
        }
        while (!policy.tryBegin()) {
            // wait for the probe
        }
        policy.end(true);
        assertThat(policy.tryBegin(), is(true));
        policy.end(true);
        assertThat(policy.tryBegin(), is(true));
    }
}
