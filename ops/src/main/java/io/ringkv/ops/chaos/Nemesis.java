package io.ringkv.ops.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Inflicts faults on one node at a time, on a schedule drawn from a seeded random source: wait,
 * fault a node, hold, heal, repeat until told to stop. One fault at a time keeps a quorum of a
 * three-node cluster reachable most of the time, so acknowledged writes keep happening. A fault
 * still in place when the nemesis is stopped stays; {@link ChaosCluster#healAll} ends it.
 *
 * <p>Threading: {@link #run} on its own thread; {@link #stop} from any thread.
 */
final class Nemesis implements Runnable {
    /** The largest clock shift of a {@link Fault#SKEW} or a {@link Fault#JUMP}. */
    static final Duration SKEW_MAX = Duration.ofSeconds(3);

    private final ChaosCluster cluster;
    private final List<Fault> faults;
    private final Random random;
    private final long quietMillisMax;
    private final long holdMillisMax;
    private final Consumer<String> events;
    private volatile boolean stopped;
    private volatile Throwable failure;

    /**
     * @param quietMillisMax longest wait between faults (the shortest is a quarter of it)
     * @param holdMillisMax  longest time a fault lasts (the shortest is a quarter of it)
     * @param events         told of every fault and heal, for the history and the console
     */
    Nemesis(ChaosCluster cluster, List<Fault> faults, long seed, long quietMillisMax, long holdMillisMax,
            Consumer<String> events) {
        if (faults.isEmpty()) {
            throw new IllegalArgumentException("a nemesis needs at least one fault");
        }
        this.cluster = cluster;
        this.faults = List.copyOf(faults);
        this.random = new Random(seed);
        this.quietMillisMax = quietMillisMax;
        this.holdMillisMax = holdMillisMax;
        this.events = events;
    }

    @Override
    public void run() {
        try {
            while (!stopped) {
                sleepUnlessStopped(between(quietMillisMax));
                if (stopped) {
                    return;
                }
                Fault fault = faults.get(random.nextInt(faults.size()));
                int node = random.nextInt(cluster.size());
                inflict(fault, node);
                sleepUnlessStopped(between(holdMillisMax));
                if (stopped) {
                    // The run ends with this fault in place: the workload stopped first, and
                    // what the node missed must now reach it without client traffic to help.
                    events.accept("RUN ENDED with node-" + node + " still under " + fault);
                    return;
                }
                heal(fault, node);
            }
        } catch (Throwable e) {
            failure = e;
        }
    }

    private void inflict(Fault fault, int node) throws Exception {
        boolean clockFault = fault == Fault.SKEW || fault == Fault.JUMP;
        Duration offset = clockFault ? skewOffset() : Duration.ZERO;
        events.accept(fault == Fault.MEMBERSHIP ? "MEMBERSHIP spare node joins" : fault + " node-" + node + (clockFault ? " clock " + offset : ""));
        switch (fault) {
            case KILL -> cluster.kill(node);
            case PAUSE -> cluster.pause(node);
            case WIPE -> cluster.wipe(node);
            case PARTITION -> cluster.isolate(node);
            case SKEW -> cluster.restartSkewed(node, offset);
            case JUMP -> cluster.stepClock(node, offset);
            case MEMBERSHIP -> cluster.joinSpare();
        }
    }

    /**
     * A shift of up to {@link #SKEW_MAX} either way, whole milliseconds: half of the draws fall
     * within the default clock bound (500 ms), where the cluster must order writes correctly, and
     * half beyond it, where the skewed node must refuse what it cannot order.
     */
    private Duration skewOffset() {
        long magnitude = random.nextBoolean()
                ? 1 + random.nextInt(500)
                : 500 + random.nextInt((int) SKEW_MAX.toMillis() - 500);
        return Duration.ofMillis(random.nextBoolean() ? magnitude : -magnitude);
    }

    private void heal(Fault fault, int node) throws Exception {
        switch (fault) {
            case KILL, WIPE -> cluster.restart(node);
            case PAUSE -> cluster.resume(node);
            case PARTITION -> cluster.rejoin(node);
            case SKEW -> cluster.restartWithTrueClock(node);
            case JUMP -> cluster.stepClock(node, Duration.ZERO);
            case MEMBERSHIP -> cluster.removeSpare();
        }
        events.accept(fault == Fault.MEMBERSHIP ? "HEALED: the spare node left (MEMBERSHIP)" : "HEALED node-" + node + " (" + fault + ")");
    }

    private long between(long max) {
        long min = Math.max(1, max / 4);
        return min + (long) (random.nextDouble() * (max - min));
    }

    private void sleepUnlessStopped(long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        while (!stopped) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Thread.sleep(Math.min(100, left / 1_000_000 + 1));
        }
    }

    void stop() {
        stopped = true;
    }

    /** The error that ended the nemesis early, or null. */
    Throwable failure() {
        return failure;
    }
}
