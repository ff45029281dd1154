package io.ringkv.http.client.internal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TwoPartCompletionTest {
    @Test
    void onlyTheCallThatCompletesBothPartsSaysSo() {
        TwoPartCompletion completion = new TwoPartCompletion();
        assertThat(completion.secondDone(), is(false));
        assertThat(completion.secondDone(), is(false)); // marking a part again completes nothing
        assertThat(completion.firstDone(), is(true));
        assertThat(completion.firstDone(), is(false));
    }

    @Test
    void racingThreadsCompleteEachJobExactlyOnce() throws Exception {
        int rounds = 50_000;
        TwoPartCompletion[] jobs = new TwoPartCompletion[rounds];
        AtomicInteger[] completions = new AtomicInteger[rounds];
        for (int i = 0; i < rounds; i++) {
            jobs[i] = new TwoPartCompletion();
            completions[i] = new AtomicInteger();
        }
        // A spinning barrier per round, so that both threads mark the same job at nearly the same moment.
        AtomicInteger arrivals = new AtomicInteger();
        Thread first = new Thread(() -> race(arrivals, jobs, completions, true));
        Thread second = new Thread(() -> race(arrivals, jobs, completions, false));
        first.start();
        second.start();
        first.join(120_000);
        second.join(120_000);
        for (int i = 0; i < rounds; i++) {
            assertThat("job " + i, completions[i].get(), is(1));
        }
    }

    private static void race(AtomicInteger arrivals, TwoPartCompletion[] jobs, AtomicInteger[] completions,
            boolean firstPart) {
        for (int i = 0; i < jobs.length; i++) {
            int released = 2 * (i + 1);
            arrivals.incrementAndGet();
            for (int spins = 0; arrivals.get() < released; spins++) {
                if (spins > 1_000) {
                    Thread.yield(); // on one CPU the other thread needs it to arrive
                } else {
                    Thread.onSpinWait();
                }
            }
            if (firstPart ? jobs[i].firstDone() : jobs[i].secondDone()) {
                completions[i].incrementAndGet();
            }
        }
    }
}
