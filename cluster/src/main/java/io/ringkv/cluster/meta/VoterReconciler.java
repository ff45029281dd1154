package io.ringkv.cluster.meta;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.RaftConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On the leader, keeps the metadata group's Raft configuration what the applied metadata calls for
 * ({@link VoterRule}): a member that joined is added as a listener, a vote moves from a member that
 * stops being {@code normal} to one that is, a {@code left} member is removed. One
 * {@code setConfiguration} at a time, and only from a settled configuration (no change under way,
 * the last one committed). When this leader itself must lose its vote it first hands its leadership
 * to a member that keeps one, since Ratis 3.2 would leave a leader made a listener in charge; the
 * next leader makes the change.
 *
 * <p>A change of voters needs a majority of the old voters and of the new ones (Ratis's joint
 * consensus): with a majority of the old voters down it cannot commit, as no metadata change can.
 *
 * <p>Threading: {@link #reconcile} runs on the group's conf thread only ({@link MetadataGroup}
 * calls it after every applied entry, every configuration change and every few seconds), and waits
 * for the change it asked for; so no two changes are ever in flight from here.
 */
final class VoterReconciler {

    private static final Logger LOG = LoggerFactory.getLogger(VoterReconciler.class);
    /** How long a change may take: a new listener is first caught up with the log (a snapshot at most). */
    private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration TRANSFER_TIMEOUT = Duration.ofSeconds(10);

    private final MetadataGroup group;
    private final int votersMax;
    /** The last change that failed, so that a change failing every round is logged once (conf thread only). */
    private String lastFailure;
    /** Configuration changes this node asked for as leader that did not complete. */
    private final java.util.concurrent.atomic.AtomicLong failedChanges = new java.util.concurrent.atomic.AtomicLong();

    VoterReconciler(MetadataGroup group, int votersMax) {
        this.group = group;
        this.votersMax = votersMax;
    }

    /** Makes one step towards the configuration the metadata calls for, if this node leads and one is needed. */
    void reconcile() {
        ClusterMetadata metadata = group.metadata();
        Optional<RaftConfiguration> settled = group.settledConfiguration();
        if (!metadata.initialised() || settled.isEmpty()) {
            return;
        }
        Set<String> voters = ids(settled.get().getCurrentPeers(RaftPeerRole.FOLLOWER));
        Set<String> listeners = ids(settled.get().getCurrentPeers(RaftPeerRole.LISTENER));
        VoterRule.Conf target = VoterRule.target(metadata, voters, votersMax);
        if (target.voters().isEmpty() || target.voterIds().equals(voters) && target.listenerIds().equals(listeners)) {
            return;
        }
        String step = "voters " + target.voterIds() + ", listeners " + target.listenerIds() + " (now voters " + voters
                + ", listeners " + listeners + ", metadata epoch " + metadata.epoch() + ")";
        try {
            if (!target.voterIds().contains(group.selfId())) {
                Optional<String> successor = target.voters().stream().map(Member::id).filter(voters::contains).findFirst();
                if (successor.isPresent()) {
                    LOG.info("metadata: this leader loses its vote in {}; handing leadership to {} first", step, successor.get());
                    group.transferLeadership(successor.get(), TRANSFER_TIMEOUT);
                    return;
                }
            }
            LOG.info("metadata: changing the group's configuration to {}", step);
            try {
                group.setConfiguration(target, CHANGE_TIMEOUT);
            } catch (IOException | TimeoutException e) {
                failedChanges.incrementAndGet();
                restartAppenders(voters);
                throw e;
            }
            LOG.info("metadata: the group's configuration is now {}", target.voterIds() + " voting, " + target.listenerIds()
                    + " listening");
            lastFailure = null;
        } catch (IOException | TimeoutException | RuntimeException e) {
            String failure = step + ": " + e;
            if (!failure.equals(lastFailure)) {
                LOG.warn("metadata: the configuration change to {} did not complete (tried again at the next check)", failure);
            }
            lastFailure = failure;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * After a change that failed, typically because a new member did not catch up in time (it died
     * while being added, say): Ratis 3.2's leader (3.2.1 and 3.2.2 alike) then also stops its log
     * appenders to every member it had not counted as caught up, the listeners among them, and
     * starts none again, so those members hear of no entry after it (a joined member stopped
     * applying the log, and a vote later given to it never reached it). A new leader starts appenders for every member of the
     * configuration, so leadership goes to another voter: the one this leader heard from last
     * first ({@link #successors}), then the others, until one takes it. The first by id was asked
     * before, and that was a dead voter whenever one sorted first: the transfer timed out, the
     * appenders stayed stopped, and a listener kept an old epoch for good (a former owner that
     * then never dropped the keys it gave up). A change that failed for want of a majority fails
     * these hand-overs too, which then change nothing.
     */
    private void restartAppenders(Set<String> voters) {
        for (String other : successors(voters, group.selfId(), group.lastHeardMillis())) {
            try {
                LOG.info("metadata: handing leadership to {} so that a new leader sends the log to every member again", other);
                group.transferLeadership(other, TRANSFER_TIMEOUT);
                return;
            } catch (IOException | TimeoutException | RuntimeException e) {
                LOG.warn("metadata: handing leadership to {} after the failed change did not complete: {}", other, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The voters other than {@code self} in the order to offer them leadership: the one heard from
     * most recently first ({@code lastHeardMillis}: ms since the leader last heard from each), those
     * it has no figure for last, ties by id.
     */
    static List<String> successors(Set<String> voters, String self, Map<String, Long> lastHeardMillis) {
        return voters.stream().filter(voter -> !voter.equals(self))
                .sorted(Comparator.<String>comparingLong(voter -> lastHeardMillis.getOrDefault(voter, Long.MAX_VALUE))
                        .thenComparing(Comparator.naturalOrder()))
                .toList();
    }

    /** Configuration changes this node asked for as leader that did not complete; from any thread. */
    long failedChanges() {
        return failedChanges.get();
    }

    private static Set<String> ids(Collection<RaftPeer> peers) {
        return peers.stream().map(peer -> peer.getId().toString()).collect(Collectors.toUnmodifiableSet());
    }
}
