package io.ringkv.node;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * The membership changes in the ahead-of-time cache's training run ({@link WarmUp#train}): after a
 * while under load, a node joins the scratch cluster, stops, is replaced, and its replacement leaves
 * ({@link ScratchCluster#joinReplaceAndLeave}), while the load goes on.
 *
 * <p>Why: the cache carries the training run's method profiles, and the JIT compiles a node's
 * request path from them. A run that never changed its membership profiles that path with a fixed
 * set of replicas, and the compiled code then traps on what a change sends down it (writes that
 * go to a pending replica, hints for a dead member, hand-over batches, version checks, epoch
 * retries): at a real step, the moment its cores are busiest, every serving node deoptimizes and
 * compiles again (docs/benchmarks.md, membership changes: 84-99 deoptimizations per serving node
 * in a grow before, 16-25 with these steps in training).
 *
 * <p>Threading: {@link #start} and {@link #stop} from the training thread; the steps run on their
 * own thread ({@code ringkv-training-membership}); {@link #ended} and {@link #outcome} from any thread.
 */
final class MembershipRehearsal {
    /** Longest the three steps may take together (a few thousand small keys move in each). */
    static final Duration STEPS_MAX = Duration.ofSeconds(60);

    private final Thread thread;
    private volatile boolean ended;
    private volatile String outcome = "not begun";

    private MembershipRehearsal(ScratchCluster scratch, Duration delay) {
        thread = new Thread(() -> run(scratch, delay), "ringkv-training-membership");
        thread.setDaemon(true);
    }

    /** Starts the steps after {@code delay} of load, so the profiles hold the steady path too. */
    static MembershipRehearsal start(ScratchCluster scratch, Duration delay) {
        MembershipRehearsal rehearsal = new MembershipRehearsal(scratch, delay);
        rehearsal.thread.start();
        return rehearsal;
    }

    private void run(ScratchCluster scratch, Duration delay) {
        long began = 0;
        try {
            Thread.sleep(delay);
            began = System.nanoTime();
            scratch.joinReplaceAndLeave(began + STEPS_MAX.toNanos());
            outcome = "a node joined, was replaced, and its replacement left, in " + (System.nanoTime() - began) / 1_000_000 + " ms";
        } catch (InterruptedException e) {
            outcome = began == 0 ? "not begun (the load ended first)" : "cut short when the load ended";
        } catch (NodeStartException | TimeoutException | IOException | RuntimeException e) {
            outcome = "failed: " + e;
        } finally {
            ended = true;
        }
    }

    /** Whether the steps are over, done or failed. */
    boolean ended() {
        return ended;
    }

    /** What became of the steps, for the training run's log line. */
    String outcome() {
        return outcome;
    }

    /** Interrupts the steps if they still run and waits for their thread (a node it started is closed with the scratch cluster). */
    void stop() throws InterruptedException {
        thread.interrupt();
        thread.join();
    }
}
