package io.ringkv.node;

import io.ringkv.cluster.member.JoinProcedure;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A joining node's share of a CPU it shares with serving nodes: from its start until its join is
 * over, its session's scheduling group ({@link SessionAutogroup}) runs at nice {@value #JOINING_NICE},
 * so its JVM's start, its compiler threads and its writes of what it receives take mostly the
 * CPU that the serving nodes leave, and the serving nodes' requests wait less for a CPU. Then the
 * group's nice value goes back to what it was. On a machine of its own nothing else wants the CPU
 * and nothing changes.
 *
 * <p>Only where the node is its session's only process (a service manager's unit, {@code setsid}):
 * then no other process is slowed, and the setting ends with the process however it ends.
 *
 * <p>Threading: {@link #lower} on the starting thread; {@link #restore} once, from any one thread.
 */
final class JoinCpuShare {
    private static final Logger LOG = LoggerFactory.getLogger(JoinCpuShare.class);
    /** The lowest share: a group at nice 19 weighs 15 against a nice-0 group's 1024. */
    static final int JOINING_NICE = 19;

    private final SessionAutogroup group;
    private final int before;

    private JoinCpuShare(SessionAutogroup group, int before) {
        this.group = group;
        this.before = before;
    }

    /**
     * Lowers the share of {@code group}'s session; @return the means to {@link #restore} it, or
     * empty where it was left as it is (logged: why).
     */
    static Optional<JoinCpuShare> lower(SessionAutogroup group) {
        try {
            String refusal = group.refusal();
            if (refusal != null) {
                LOG.info("while it joins, the node keeps its usual CPU share: {}", refusal);
                return Optional.empty();
            }
            int before = group.nice();
            // At 19 there is nothing to lower; back below 0 would need CAP_SYS_NICE.
            if (before < 0 || before >= JOINING_NICE) {
                LOG.info("while it joins, the node keeps its session's CPU share: its autogroup is at nice {}", before);
                return Optional.empty();
            }
            group.setNice(JOINING_NICE);
            LOG.info("until its join is over, this node's session runs at autogroup nice {} (was {}): it takes the CPU "
                    + "that other processes leave (--join-priority normal: as started)", JOINING_NICE, before);
            return Optional.of(new JoinCpuShare(group, before));
        } catch (IOException e) {
            LOG.warn("while it joins, the node keeps its usual CPU share: {}", e.toString());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Restores the share once {@code join} is over (done, aborted or closed); at once without one. */
    void restoreWhenOver(Optional<JoinProcedure> join) {
        if (join.isEmpty()) {
            restore();
            return;
        }
        Thread.ofPlatform().daemon(true).name("ringkv-join-cpu-share").start(() -> {
            try {
                join.get().awaitOver();
            } catch (InterruptedException e) {
                // Nothing interrupts this thread but the JVM's end; restore anyway.
            }
            restore();
        });
    }

    /** The session's nice value as it was before {@link #lower}. */
    void restore() {
        try {
            group.setNice(before);
            LOG.info("the join is over: this node's session runs at autogroup nice {} again", before);
        } catch (IOException e) {
            LOG.warn("could not set this node's session back to autogroup nice {} ({}); it runs at nice {} until it "
                    + "stops, or write {} to /proc/{}/autogroup", before, e.toString(), JOINING_NICE, before,
                    ProcessHandle.current().pid());
        } catch (InterruptedException e) {
            LOG.warn("interrupted while setting this node's session back to autogroup nice {}", before);
            Thread.currentThread().interrupt();
        }
    }
}
