package io.ringkv.node;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a node's JVM hot before the node serves: a {@link ScratchCluster} under {@link MixedLoad}
 * for a while, so the JIT has compiled the request path (HTTP codec, coordinator, internal plane,
 * RocksDB calls) by the time the first client arrives. A cold JVM otherwise spends its first
 * seconds interpreting, and a node under load then answers {@code 503} (its in-flight budget
 * fills) with latencies of a second or more. The ahead-of-time cache (see the launcher) makes this
 * shorter: its method profiles let the JIT compile sooner.
 *
 * <p>Threading: {@link #run} blocks the calling thread for at most about the duration.
 */
final class WarmUp {
    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);

    /**
     * About what the JIT needs to compile the request path with full profiles: a 3-node cluster
     * at 1,000 PUT/s reached its steady p99 after 20 to 30 s of load (bench --cold-start).
     */
    static final long MINIMUM_REQUESTS = 20_000;

    private WarmUp() {
    }

    /**
     * Requests a second while the JIT catches up: every request-path method runs every few
     * milliseconds (HotSpot drops a queued compilation whose method went unused for 50 ms, its
     * {@code TieredCompileTaskTimeout}), at a small fraction of the full load's rate.
     */
    static final int TRICKLE_PER_SECOND = 500;

    /**
     * Runs the scratch cluster under full load until it has answered {@value #MINIMUM_REQUESTS}
     * requests, then under a trickle of {@value #TRICKLE_PER_SECOND} requests a second until the
     * JIT has calmed down for a second (see {@link JitActivity}), or until {@code duration} has
     * passed, whichever is first; a failure (no free port, no temp space) is logged and the node
     * starts cold rather than not at all.
     *
     * <p>Why two phases: full load fills the profiles fast, but it also keeps the CPU busy, and the
     * JIT's queue grows faster than its threads drain it when the JVM shares its cores (three
     * nodes starting on one machine): at the end of 30 s of full load the C2 queue of such a node
     * held 340 to 720 methods ({@code bench --cold-start --jit-queue}), which it then compiled
     * during its first seconds of real traffic. With the load down to a trickle, the compiler
     * threads get the CPU.
     *
     * @return the answers the scratch cluster gave (0 when it could not run)
     */
    static long run(Duration duration) {
        return run(duration, MINIMUM_REQUESTS, true);
    }

    /** Full load for exactly {@code duration} (the ahead-of-time cache's training run). */
    static long runFor(Duration duration) {
        return run(duration, Long.MAX_VALUE, false);
    }

    private static long run(Duration duration, long minimumRequests, boolean awaitJit) {
        if (duration.isZero()) {
            return 0;
        }
        long started = System.nanoTime();
        MixedLoad load;
        long fullLoadNanos;
        boolean calm = false;
        try (AutoCloseable quiet = LogSetup.onlyWarnings(); ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad running = new MixedLoad(scratch.urls());
            load = running;
            running.run(duration, () -> running.answered() >= minimumRequests);
            fullLoadNanos = System.nanoTime() - started;
            Duration left = duration.minusNanos(fullLoadNanos);
            if (awaitJit && left.isPositive()) {
                running.trickle(left, TRICKLE_PER_SECOND, new JitActivity()::quiet);
                calm = System.nanoTime() - started < duration.toNanos(); // it stopped before its time: the JIT calmed
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("warm-up skipped, the node starts cold: {}", e.toString());
            return 0;
        }
        // The scratch cluster's garbage fills the heap; collected now, before the node serves, it
        // does not lengthen the first young collection under real traffic.
        System.gc();
        log.info("warmed up in {} ms: {} requests answered by a scratch cluster in this JVM ({} failed), {} ms at full load{}",
                (System.nanoTime() - started) / 1_000_000, load.answered(), load.failed(), fullLoadNanos / 1_000_000,
                !awaitJit || calm ? "" : "; the JIT was still compiling when the warm-up's time was up");
        return load.answered();
    }
}
