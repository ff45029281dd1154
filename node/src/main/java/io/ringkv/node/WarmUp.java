package io.ringkv.node;

import java.time.Duration;
import java.util.function.BooleanSupplier;
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
     * Runs the scratch cluster under load until it has answered {@value #MINIMUM_REQUESTS}
     * requests and the JIT has calmed down for a second (the code the load runs is compiled, see
     * {@link JitActivity}) or {@code duration} has passed, whichever is first; a failure (no free port, no temp
     * space) is logged and the node starts cold rather than not at all.
     *
     * @return the answers the scratch cluster gave (0 when it could not run)
     */
    static long run(Duration duration) {
        return run(duration, MINIMUM_REQUESTS, new JitActivity()::quiet);
    }

    /** As {@link #run(Duration)}, for exactly {@code duration} (the ahead-of-time cache's training run). */
    static long runFor(Duration duration) {
        return run(duration, Long.MAX_VALUE, () -> false);
    }

    private static long run(Duration duration, long minimumRequests, BooleanSupplier done) {
        if (duration.isZero()) {
            return 0;
        }
        long started = System.nanoTime();
        MixedLoad load;
        try (AutoCloseable quiet = LogSetup.onlyWarnings(); ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad running = new MixedLoad(scratch.urls());
            load = running;
            // Both, because a JVM starved of CPU (other JVMs on the same cores) compiles little
            // for a while and so looks calm before its code is compiled.
            running.run(duration, () -> running.answered() >= minimumRequests && done.getAsBoolean());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("warm-up skipped, the node starts cold: {}", e.toString());
            return 0;
        }
        log.info("warmed up in {} ms: {} requests answered by a scratch cluster in this JVM ({} failed)",
                (System.nanoTime() - started) / 1_000_000, load.answered(), load.failed());
        return load.answered();
    }
}
