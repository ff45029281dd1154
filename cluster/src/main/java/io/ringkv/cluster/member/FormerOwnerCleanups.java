package io.ringkv.cluster.member;

import io.ringkv.cluster.ClusterNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last step of a join: each former owner asked to run a cleanup, which drops the keys it no
 * longer owns. A member that does not start one when first asked is asked again, after a pause
 * that doubles, up to {@link #ATTEMPTS} times in all (1 + 2 + 4 + 8 + 16 s of pauses): a member
 * still catching up with the metadata answers {@code 503} until it knows the epoch that made this
 * node normal, and one that never ran the cleanup would keep every key it gave up, on one node
 * more than its owners, compared and updated by nothing. Asked once only, a member that had fallen
 * behind (its Raft log appender stopped, docs/cluster.md) kept about 5,000 such keys in a
 * replacement under load.
 *
 * <p>Threading: {@link #askAll} runs on the membership step's thread and blocks it while it pauses.
 */
final class FormerOwnerCleanups {
    private static final Logger LOG = LoggerFactory.getLogger(FormerOwnerCleanups.class);
    /** How many times a member is asked at most. */
    static final int ATTEMPTS = 6;
    /** The pause before the second round of asking; doubled before each one after. */
    static final Duration FIRST_PAUSE = Duration.ofSeconds(1);

    /** Asks one member to start its cleanup; throws when it did not. */
    @FunctionalInterface
    interface Ask {
        void start(ClusterNode member) throws IOException, InterruptedException;
    }

    /** Pauses the calling thread; a test gives one that records the pauses instead. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(Duration pause) throws InterruptedException;
    }

    private FormerOwnerCleanups() {
    }

    /**
     * Asks every member in {@code owners} until each started its cleanup or was asked
     * {@link #ATTEMPTS} times, or {@code stop} says so between rounds.
     *
     * @return the members that never started one (each logged with what to run by hand)
     */
    static List<ClusterNode> askAll(List<ClusterNode> owners, Ask ask, Sleeper sleeper, BooleanSupplier stop)
            throws InterruptedException {
        List<ClusterNode> left = new ArrayList<>(owners);
        Duration pause = FIRST_PAUSE;
        for (int attempt = 1; ; attempt++) {
            for (ClusterNode owner : List.copyOf(left)) {
                try {
                    ask.start(owner);
                    left.remove(owner);
                } catch (IOException e) {
                    if (attempt < ATTEMPTS) {
                        LOG.info("join: {} did not start its cleanup ({}); asking again in {}", owner.id(), e.getMessage(), pause);
                    } else {
                        LOG.warn("join: {} did not start its cleanup in {} attempts ({}); run `ringkv cleanup --node {}`",
                                owner.id(), ATTEMPTS, e.getMessage(), owner.id());
                    }
                }
            }
            if (left.isEmpty() || attempt == ATTEMPTS || stop.getAsBoolean()) {
                return List.copyOf(left);
            }
            sleeper.sleep(pause);
            pause = pause.multipliedBy(2);
        }
    }
}
