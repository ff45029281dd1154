package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On this JVM itself, as a joining node uses it: every thread goes under SCHED_IDLE, a thread
 * started meanwhile inherits it, and every one of them comes back under SCHED_OTHER, as the kernel
 * reports each thread's policy. Skipped where the process may not leave SCHED_IDLE again (not
 * root, RLIMIT_NICE below 20) or the system has no such policy: there the node does not use it.
 */
@Timeout(30)
class IdleSchedulingTest {

    @Test
    void everyThreadGoesIdleAndComesBackThoseStartedMeanwhileToo() throws Exception {
        IdleScheduling calls = IdleScheduling.bind();
        assumeTrue(calls != null, "no sched_setscheduler here (not Linux)");
        assumeTrue(calls.policyOf(0) == IdleScheduling.SCHED_OTHER, "this JVM was not started under SCHED_OTHER");
        IdleScheduling idle = IdleScheduling.enter();
        assumeTrue(idle != null, "this process may not leave SCHED_IDLE again (needs root or RLIMIT_NICE 20): "
                + "the node does not enter it either");
        AtomicInteger startedMeanwhile = new AtomicInteger(-2);
        CountDownLatch release = new CountDownLatch(1);
        Thread later = Thread.ofPlatform().start(() -> {
            startedMeanwhile.set(calls.policyOf(0));
            awaitQuietly(release);
            startedMeanwhile.set(calls.policyOf(0));
        });
        try {
            while (startedMeanwhile.get() == -2) {
                Thread.sleep(1);
            }
            assertThat("a thread started while idle inherits it", startedMeanwhile.get(), is(IdleScheduling.SCHED_IDLE));
            assertThat("every thread idle", policies(calls).values().stream().allMatch(p -> p == IdleScheduling.SCHED_IDLE),
                    is(true));
        } finally {
            idle.leave();
        }
        assertThat("every thread back: " + policies(calls), policies(calls).values().stream()
                .allMatch(p -> p == IdleScheduling.SCHED_OTHER), is(true));
        release.countDown();
        later.join();
        assertThat("the thread started meanwhile too", startedMeanwhile.get(), is(IdleScheduling.SCHED_OTHER));
    }

    /** Thread id to policy, of the threads alive now. */
    private static Map<Long, Integer> policies(IdleScheduling calls) {
        Map<Long, Integer> policies = new TreeMap<>();
        for (long tid : IdleScheduling.threadIds()) {
            int policy = calls.policyOf(tid);
            if (policy >= 0) {
                policies.put(tid, policy);
            }
        }
        return policies;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
