package io.ringkv.ops.chaos;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * Measures whether hinted handoff alone catches up a node that was partitioned under write load:
 * three node processes in network namespaces (default {@code 2/3}), anti-entropy pushed out of the
 * run ({@link #ANTI_ENTROPY_INTERVAL}), a {@link PacedWriter} through the two nodes that stay
 * linked, then:
 *
 * <ol>
 *   <li>load for the warm-up, all nodes linked;
 *   <li>the partitioned node's links to both others cut (blackhole routes, added one after the
 *       other: the cut starts with the first) and held cut for the partition's length once all are
 *       in place; clients still reach the node, but the writer never sends to it;
 *   <li>still cut off, a read of its own copies gives the acknowledged writes it lacks; writes
 *       acknowledged during that read are added to them (written while it was cut off, it cannot
 *       hold them); then the links come back ("heal", from the removal of the first route);
 *   <li>with the load still running, its own copies ({@link CatchUpCheck}: local ranges only, no
 *       quorum read that could repair a key) are polled until it holds every write acknowledged
 *       before the heal began, or the catch-up timeout passes.
 * </ol>
 *
 * <p>The coordinators' hint counters are sampled once a second throughout ({@link HintSampler}).
 *
 * <p>Threading: {@link #run} on the caller's thread; the writer and the sampler on threads of
 * their own for the duration.
 */
public final class HandoffRun {
    /** Far beyond any run: no anti-entropy round starts, so hints are all that can bring writes over. */
    static final Duration ANTI_ENTROPY_INTERVAL = Duration.ofHours(24);
    static final int NODES = 3;
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration PROGRESS = Duration.ofSeconds(30);
    private static final Duration SAMPLE_AFTER = Duration.ofMillis(1_500);

    /**
     * What to run.
     *
     * @param root            parent directory of the nodes' data
     * @param ports           one free port per node (three)
     * @param warmUp          load before the partition
     * @param partition       how long the node is cut off
     * @param writesPerSecond the writer's rate
     * @param seed            picks the partitioned node and the values
     * @param catchUpTimeout  how long after the heal the node gets to hold every write
     */
    public record Settings(Path root, List<Integer> ports, Duration warmUp, Duration partition, double writesPerSecond,
                           long seed, Duration catchUpTimeout) {
        public Settings {
            Objects.requireNonNull(root);
            ports = List.copyOf(ports);
            if (ports.size() != NODES) {
                throw new IllegalArgumentException("a handoff run has " + NODES + " nodes, got " + ports.size() + " ports");
            }
            if (warmUp.isNegative() || !partition.isPositive() || !(writesPerSecond > 0) || !catchUpTimeout.isPositive()) {
                throw new IllegalArgumentException("warm-up must not be negative; partition, rate and catch-up timeout must be positive");
            }
            double writes = writesPerSecond * (warmUp.toMillis() + partition.toMillis() + catchUpTimeout.toMillis()) / 1000.0;
            if (writes > Integer.MAX_VALUE - 1 || writes > HandoffKeys.MAX_SEQUENCE) {
                throw new IllegalArgumentException("too many writes for one run: " + (long) writes);
            }
        }

        int partitioned() {
            return (int) Math.floorMod(seed, (long) NODES);
        }
    }

    /** A change of the links, in milliseconds since the run's origin (as the hint samples): begun and done. */
    public record LinkChange(long startMillis, long doneMillis) {
    }

    /** How many writes the node lacked after this many milliseconds since the heal. */
    public record Progress(long sinceHealMillis, int missing) {
    }

    /**
     * @param ackedBeforeCut    writes acknowledged before the cut began
     * @param expected          writes acknowledged before the heal began: what the node must hold
     * @param missingAtHeal     of those, how many it lacked at the heal
     * @param catchUpMillis     from the heal's start to holding every expected write; -1 when it did not within the timeout
     * @param stillMissing      expected writes it lacked when the run ended (0 when it caught up)
     * @param cut               the links cut
     * @param heal              the links restored
     * @param issued            writes sent in the whole run
     * @param acknowledged      writes acknowledged in the whole run
     * @param failed            writes not acknowledged in the whole run
     * @param writingMillis     how long the writer ran
     */
    public record Result(Settings settings, String partitionedNode, List<String> writeNodes, long ackedBeforeCut,
                         long expected, int missingAtHeal, long catchUpMillis, int stillMissing, LinkChange cut,
                         LinkChange heal, long issued, long acknowledged, long failed, long writingMillis,
                         List<Progress> progress, List<HintSampler.Sample> hints) {
        public boolean caughtUp() {
            return catchUpMillis >= 0;
        }

        public long ackedDuringPartition() {
            return expected - ackedBeforeCut;
        }

        /** Anti-entropy rounds the writing nodes finished in the run, as last sampled: 0 when only hints worked. */
        public long antiEntropyRounds() {
            return hints.stream().mapToLong(HintSampler.Sample::antiEntropyRounds).max().orElse(0);
        }
    }

    private final Settings settings;
    private final PrintStream console;
    private final PrintStream nodeLogs;

    /**
     * @param console  progress lines for a person watching
     * @param nodeLogs where the nodes' output goes
     */
    public HandoffRun(Settings settings, PrintStream console, PrintStream nodeLogs) {
        this.settings = settings;
        this.console = console;
        this.nodeLogs = nodeLogs;
    }

    public Result run() throws IOException, InterruptedException {
        int partitioned = settings.partitioned();
        HandoffKeys keys = new HandoffKeys(settings.seed());
        List<String> serveArgs = List.of("--anti-entropy-interval", ANTI_ENTROPY_INTERVAL.toString());
        try (ClusterSession session = ClusterSession.start(settings.root(), settings.ports(), true, serveArgs, nodeLogs)) {
            ChaosCluster cluster = session.cluster();
            List<String> writeNodes = new ArrayList<>();
            for (int i = 0; i < cluster.size(); i++) {
                if (i != partitioned) {
                    writeNodes.add(cluster.url(i));
                }
            }
            String target = cluster.url(partitioned);
            long origin = System.nanoTime();
            try (PacedWriter writer = new PacedWriter(writeNodes, settings.writesPerSecond(), keys);
                 HintSampler hints = new HintSampler(writeNodes, origin)) {
                console.printf("[handoff] 3 nodes up; writing %.0f/s through %s; node-%d (%s) will be cut off%n",
                        settings.writesPerSecond(), writeNodes, partitioned, target);
                writer.start();
                hints.start();
                Thread.sleep(settings.warmUp());

                long ackedBeforeCut = writer.acknowledged().cardinality();
                long cutStart = sinceMillis(origin);
                cluster.isolate(partitioned);
                LinkChange cut = new LinkChange(cutStart, sinceMillis(origin));
                console.printf("[handoff] node-%d cut off after %d acknowledged writes (links cut in %d ms); partition lasts %d s%n",
                        partitioned, ackedBeforeCut, cut.doneMillis() - cut.startMillis(), settings.partition().toSeconds());
                holdPartition(writer, hints);

                BitSet expected = writer.acknowledged();
                CatchUpCheck check = new CatchUpCheck(target, keys, expected);
                try (check) {
                    check.poll();
                    BitSet late = writer.acknowledged();
                    late.andNot(expected);
                    check.addMissing(late);
                    expected.or(late);
                    long healNanos = System.nanoTime();
                    long healStart = sinceMillis(origin);
                    cluster.rejoin(partitioned);
                    LinkChange heal = new LinkChange(healStart, sinceMillis(origin));
                    int missingAtHeal = check.missingCount();
                    console.printf("[handoff] healed (links restored in %d ms); %d writes acknowledged before the heal, node-%d lacks %d of them%n",
                            heal.doneMillis() - heal.startMillis(), expected.cardinality(), partitioned, missingAtHeal);
                    List<Progress> progress = new ArrayList<>();
                    progress.add(new Progress(0, missingAtHeal));
                    long catchUp = awaitCatchUp(check, healNanos, progress, hints);
                    // One more hint sample after the catch-up, so the replay up to it is counted.
                    Thread.sleep(SAMPLE_AFTER);
                    writer.stop();
                    return new Result(settings, target, writeNodes, ackedBeforeCut, expected.cardinality(), missingAtHeal,
                            catchUp, check.missingCount(), cut, heal, writer.issued(), writer.acknowledged().cardinality(),
                            writer.failed(), sinceMillis(origin), progress, hints.samples());
                }
            }
        }
    }

    private void holdPartition(PacedWriter writer, HintSampler hints) throws InterruptedException {
        long end = System.nanoTime() + settings.partition().toNanos();
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.min(left / 1_000_000, PROGRESS.toMillis()));
            HintSampler.Sample latest = hints.latest();
            console.printf("[handoff] partitioned, %d s left: %d writes sent, %d acknowledged, %d failed; hints queued %d%n",
                    Math.max(0, (end - System.nanoTime()) / 1_000_000_000), writer.issued(),
                    writer.acknowledged().cardinality(), writer.failed(), latest.queued());
        }
    }

    /** @return milliseconds from the heal until nothing was missing, or -1 at the timeout */
    private long awaitCatchUp(CatchUpCheck check, long healNanos, List<Progress> progress, HintSampler hints)
            throws IOException, InterruptedException {
        long deadline = healNanos + settings.catchUpTimeout().toNanos();
        long nextReport = System.nanoTime() + PROGRESS.toNanos() / 6;
        while (check.missingCount() > 0) {
            if (System.nanoTime() >= deadline) {
                console.printf("[handoff] NOT caught up %d s after the heal: %d writes still missing%n",
                        settings.catchUpTimeout().toSeconds(), check.missingCount());
                return -1;
            }
            Thread.sleep(POLL);
            int missing = check.poll();
            long since = (System.nanoTime() - healNanos) / 1_000_000;
            progress.add(new Progress(since, missing));
            if (System.nanoTime() >= nextReport || missing == 0) {
                nextReport = System.nanoTime() + PROGRESS.toNanos() / 6;
                console.printf("[handoff] %.1f s after the heal: %d missing; hints queued %d%n", since / 1e3, missing,
                        hints.latest().queued());
            }
        }
        return progress.getLast().sinceHealMillis();
    }

    private static long sinceMillis(long originNanos) {
        return (System.nanoTime() - originNanos) / 1_000_000;
    }
}
