package io.ringkv.node;

import io.ringkv.cluster.ClusterNodes;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a node's JVM hot before the node serves, when that helps: a {@link ScratchCluster} under
 * {@link MixedLoad} for a while, so the JIT has compiled the request path (HTTP codec, coordinator,
 * internal plane, RocksDB calls) by the time the first client arrives. The ahead-of-time cache (see
 * the launcher) makes this shorter: its method profiles let the JIT compile sooner.
 *
 * <p>It helps one case only: a node restarted into a cluster whose other nodes serve, and answer
 * meanwhile, so its clients lose nothing while it warms, and then find it as fast as its peers.
 * A node of a new cluster (every node starting, {@code ringkv up}, a script of {@code serve}s) or a
 * node alone has nobody to answer for it: a warm-up there only delays its first answer (by about
 * 30 s) and leaves its JIT compiling, on a machine its peers share, for seconds after it says
 * ready. So {@link #beforeServing} asks the peers first ({@link ServingPeers}) and warms up only
 * when one serves.
 *
 * <p>Threading: {@link #beforeServing} and {@link #run} block the calling thread for at most about
 * the duration (plus one bounded probe of the peers).
 */
final class WarmUp {
    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);

    /**
     * About what the JIT needs to compile the request path with full profiles: a 3-node cluster
     * at 1,000 PUT/s reached its steady p99 after 20 to 30 s of load (bench --cold-start).
     */
    static final long MINIMUM_REQUESTS = 20_000;

    /**
     * The end of the warm-up kept free of load, so the JIT finishes (or drops) what it queued
     * before the node says ready rather than after: without load the C2 queue drains in well
     * under this (HotSpot drops a queued method nobody called for 50 ms).
     */
    static final Duration SETTLE = Duration.ofSeconds(3);

    private WarmUp() {
    }

    /**
     * Requests a second while the JIT catches up: every request-path method runs every few
     * milliseconds (HotSpot drops a queued compilation whose method went unused for 50 ms, its
     * {@code TieredCompileTaskTimeout}), at a small fraction of the full load's rate.
     */
    static final int TRICKLE_PER_SECOND = 500;

    /**
     * The start-up decision: warms up for at most {@code duration} when a peer of {@code topology}
     * serves ({@link ServingPeers}), else logs {@code warm-up skipped: no serving peer} and
     * returns at once. {@code PT0S} skips the warm-up without asking anyone.
     *
     * @param trust verifies https peers' certificates for the probe (null: the JDK's default trust)
     * @return the answers the scratch cluster gave (0 when it did not run)
     */
    static long beforeServing(ClusterNodes topology, SSLContext trust, Duration duration) {
        return beforeServing(topology.others(), trust, duration);
    }

    /**
     * As above, probing {@code peers}: the members a new node's {@code --join} names, whose cluster
     * it warms up for before it asks to join (once the metadata names it {@code joining}, writes
     * of the keys it will own are sent to it, and a node still warming up fails them).
     */
    static long beforeServing(java.util.List<io.ringkv.cluster.ClusterNode> peers, SSLContext trust, Duration duration) {
        if (duration.isZero()) {
            log.info("warm-up skipped: --warm-up PT0S");
            return 0;
        }
        if (peers.isEmpty()) {
            log.info("warm-up skipped: no serving peer (a one-node cluster); serving at once");
            return 0;
        }
        ServingPeers.Probe probe;
        try {
            probe = ServingPeers.probe(peers, trust, ServingPeers.PROBE_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // kept for the caller: a node asked to stop while starting
            log.info("warm-up skipped: interrupted while probing the peers");
            return 0;
        }
        if (probe.serving().isEmpty()) {
            log.info("warm-up skipped: no serving peer (a new cluster: {}); serving at once", String.join(", ", probe.seen()));
            return 0;
        }
        log.info("warming up for at most {} while {} serve(s) ({})", duration, String.join(", ", probe.serving()),
                String.join(", ", probe.seen()));
        return run(duration);
    }

    /**
     * Runs the scratch cluster under full load until it has answered {@value #MINIMUM_REQUESTS}
     * requests, then under a trickle of {@value #TRICKLE_PER_SECOND} requests a second until the
     * JIT has calmed down for a second (see {@link JitActivity}), then, when it has not, without
     * load for the last {@link #SETTLE} until it does; all within {@code duration}. A failure (no
     * free port, no temp space) is logged and the node starts cold rather than not at all.
     *
     * <p>Why phases: full load fills the profiles fast, but it also keeps the CPU busy, and the
     * JIT's queue grows faster than its threads drain it when the JVM shares its cores (three
     * nodes starting on one machine): at the end of 30 s of full load the C2 queue of such a node
     * held 340 to 720 methods ({@code bench --cold-start --jit-queue}), which it then compiled
     * during its first seconds of real traffic. With the load down to a trickle, the compiler
     * threads get the CPU; with no load at the end, the node does not say ready with its JIT busy.
     *
     * @return the answers the scratch cluster gave (0 when it could not run)
     */
    static long run(Duration duration) {
        if (duration.isZero()) {
            return 0;
        }
        long started = System.nanoTime();
        long end = started + duration.toNanos();
        MixedLoad load;
        long fullLoadNanos;
        JitActivity jit = new JitActivity();
        boolean calm = false;
        try (AutoCloseable quiet = LogSetup.onlyWarnings(); ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad running = new MixedLoad(scratch.urls());
            load = running;
            // The full load ends SETTLE before the deadline at the latest (on a busy machine 20,000
            // answers can take the whole duration), so the JIT gets those seconds without load.
            Duration fullLoad = duration.compareTo(SETTLE.multipliedBy(2)) > 0 ? duration.minus(SETTLE) : duration;
            running.run(fullLoad, () -> running.answered() >= MINIMUM_REQUESTS);
            fullLoadNanos = System.nanoTime() - started;
            Duration trickle = Duration.ofNanos(end - System.nanoTime()).minus(SETTLE);
            if (trickle.isPositive()) {
                running.trickle(trickle, TRICKLE_PER_SECOND, jit::quiet);
                calm = System.nanoTime() - end + SETTLE.toNanos() < 0; // it stopped before its time: the JIT calmed
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
        if (!calm) {
            calm = settle(jit, end);
        }
        log.info("warmed up in {} ms: {} requests answered by a scratch cluster in this JVM ({} failed), {} ms at full load{}",
                (System.nanoTime() - started) / 1_000_000, load.answered(), load.failed(), fullLoadNanos / 1_000_000,
                calm ? "; the JIT is quiet" : "; the JIT was still compiling when the warm-up's time was up");
        return load.answered();
    }

    /**
     * The ahead-of-time cache's training run: the scratch cluster under full load for
     * {@code duration}, and meanwhile, from a quarter of the way in, a fourth node joins and
     * leaves ({@link MembershipRehearsal}); the load goes on until that is over too (at most
     * {@link MembershipRehearsal#STEPS_MAX} longer). No trickle and no settling: the JVM writes
     * its profiles as it exits.
     *
     * @return the answers the scratch cluster gave (0 when it could not run)
     */
    static long train(Duration duration) {
        long started = System.nanoTime();
        MixedLoad load;
        MembershipRehearsal steps;
        try (AutoCloseable quiet = LogSetup.onlyWarnings(); ScratchCluster scratch = ScratchCluster.open()) {
            MixedLoad running = new MixedLoad(scratch.urls());
            load = running;
            MembershipRehearsal rehearsal = MembershipRehearsal.start(scratch, duration.dividedBy(4));
            steps = rehearsal;
            try {
                running.run(duration.plus(MembershipRehearsal.STEPS_MAX),
                        () -> System.nanoTime() - started >= duration.toNanos() && rehearsal.ended());
            } finally {
                rehearsal.stop();
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            log.warn("training run failed: {}", e.toString());
            return 0;
        }
        log.info("trained in {} ms: {} requests answered by a scratch cluster in this JVM ({} failed); membership: {}",
                (System.nanoTime() - started) / 1_000_000, load.answered(), load.failed(), steps.outcome());
        return load.answered();
    }

    /** Waits without load until the JIT is quiet or {@code end} (System.nanoTime) has come. @return whether it became quiet */
    private static boolean settle(JitActivity jit, long end) {
        try {
            while (System.nanoTime() - end < 0) {
                if (jit.quiet()) {
                    return true;
                }
                Thread.sleep(Duration.ofMillis(Math.min(100, Math.max(1, (end - System.nanoTime()) / 1_000_000))));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }
}
