package io.ringkv.cluster;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Settings of a {@link Coordinator}.
 *
 * @param deadline longest time an operation waits for {@code ack} replies before answering
 *                 {@code 504}. Remote replicas time out on their own (see {@link ReplicaClient});
 *                 this bound also covers a replica that never completes.
 * @param executor where a deadline's expiry is handled (not on the {@link DeadlineQueue}'s
 *                 watcher), and where a failed write's hint and read repairs go when a reply
 *                 arrives on an event loop; never an event loop itself
 * @param readSpareDelay a read asks {@code ack} replicas (this node's own first) and the others
 *                 only when one of those fails or this long passed without an answer; zero asks
 *                 every replica at once (more CPU per read, less wait behind a slow replica)
 */
public record CoordinatorSettings(Duration deadline, Executor executor, Duration readSpareDelay) {

    /** Remote replicas default to a 1 s timeout; the deadline leaves room for that to fire first. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofMillis(1500);
    /** How much longer than a replica request may take the coordinator waits for it. */
    public static final Duration DEADLINE_MARGIN = Duration.ofMillis(500);

    /**
     * Well above a healthy replica's answer on one machine or a LAN (well under a millisecond to a
     * few under load), well below the replica timeout: a replica that has not answered by then is
     * paused, overloaded or gone, and the spare is the faster way to an answer.
     */
    public static final Duration DEFAULT_READ_SPARE_DELAY = Duration.ofMillis(20);

    public CoordinatorSettings(Duration deadline, Executor executor) {
        this(deadline, executor, DEFAULT_READ_SPARE_DELAY);
    }

    public CoordinatorSettings {
        Objects.requireNonNull(executor, "executor");
        if (readSpareDelay.isNegative()) {
            throw new IllegalArgumentException("the read spare delay must not be negative, got " + readSpareDelay);
        }
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("the coordinator deadline must be positive, got " + deadline);
        }
    }

    public static CoordinatorSettings withDefaults(Executor executor) {
        return new CoordinatorSettings(DEFAULT_DEADLINE, executor);
    }

    /**
     * The deadline for a given replica request timeout: the timeout plus {@link #DEADLINE_MARGIN},
     * so a replica that answers just within its timeout still counts (1 s gives the default 1.5 s).
     */
    public static Duration deadlineFor(Duration replicaTimeout) {
        return replicaTimeout.plus(DEADLINE_MARGIN);
    }
}
