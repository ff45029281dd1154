package io.ringkv.cluster;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts this node's cleanup by itself whenever ownership may have moved away from it since its
 * last cleanup that left nothing to hand over ({@link SettledOwnership#mayLeaveCopiesOn}): a join
 * or a replacement completed, the replication factor went down, or a leave was rolled back (a
 * member that starts to leave stops counting as settled {@code normal} here, since its hand-over
 * may send this node copies as a pending owner; normal again, it takes them back). Every former
 * owner so drops the copies it gave up without being asked, whichever node dies on the way:
 * before, the joining node asked each one once it was {@code normal}, and a joining node killed
 * between the two, or a former owner killed in its run, left those copies on one node more than
 * their owners for good, compared and updated by nothing.
 *
 * <p>What settled is kept in {@code DATA/meta/settled-ownership} ({@link SettledOwnershipFile}):
 * a node started again after it died in the middle of such a cleanup sees that ownership moved
 * since, and runs it again. A node that has no such file takes the first metadata it knows as
 * settled (a new cluster holds nothing it does not own; a node of an earlier version had its
 * cleanups asked for by the joining node); one whose file cannot be read runs a cleanup to be sure.
 * Until {@link #attach} names the file, the state is held in memory alone.
 *
 * <p>A run is asked for once per new ownership ({@link #requested}, forgotten whenever what is
 * settled changes); the cleanup itself ({@link Cleanup#request}) folds a request that comes while
 * it runs into one run after.
 *
 * <p>Threading: {@link #follow} runs on the thread that offers metadata, under
 * {@link KnownMetadata}'s lock (quick: a comparison and a request, which only queues the run; the
 * small file is written there only when the node has none and when a member starts to leave); {@link #settled} on the cleanup
 * thread; {@link #attach} once, on the thread that starts the metadata group. All three take this
 * object's lock.
 */
final class OwnershipCleanups {
    private static final Logger LOG = LoggerFactory.getLogger(OwnershipCleanups.class);

    private final String selfId;
    private final Runnable requestRun;
    /** Guarded by this. Null until attached: the state is kept in memory alone. */
    private Path file;
    /** Guarded by this. Null while nothing is known as settled. */
    private SettledOwnership settled;
    /** Guarded by this: the stored state could not be read; a cleanup is due. */
    private boolean unreadable;
    /** Guarded by this: the ownership a run was last asked for, or null. */
    private SettledOwnership requested;
    /** Guarded by this: the newest initialised metadata offered, or null. */
    private ClusterMetadata latest;

    /**
     * @param selfId     this node's member id ({@link Member#idOf})
     * @param requestRun asks for a cleanup run ({@link Cleanup#request})
     */
    OwnershipCleanups(String selfId, Runnable requestRun) {
        this.selfId = selfId;
        this.requestRun = requestRun;
    }

    /**
     * Keeps the settled ownership in {@code file} from now on: what the file holds replaces what
     * was known in memory (the node's state before this start), and a missing file is written.
     */
    synchronized void attach(Path file) {
        this.file = file;
        try {
            Optional<SettledOwnership> stored = SettledOwnershipFile.read(file);
            if (stored.isPresent()) {
                settled = stored.get();
            } else if (settled != null) {
                persist(settled);
            }
        } catch (IOException e) {
            LOG.warn("cannot read what this node's last cleanup settled ({}); it runs a cleanup once it is a normal member",
                    e.getMessage());
            settled = null;
            unreadable = true;
        }
        if (latest != null) {
            consider(latest);
        }
    }

    /** A newer metadata (a {@link KnownMetadata} listener). */
    synchronized void follow(ClusterMetadata metadata) {
        if (!metadata.initialised()) {
            return;
        }
        latest = metadata;
        consider(metadata);
    }

    /**
     * A cleanup under {@code view} and {@code replicationFactor} is over and left nothing it does
     * not own here (a follow-up over the records it kept included).
     */
    synchronized void settled(MembershipView view, int replicationFactor) {
        SettledOwnership done = SettledOwnership.of(view, replicationFactor);
        if (settled != null && done.epoch() < settled.epoch()) {
            return; // a run under an older view than one that settled already
        }
        settled = done;
        unreadable = false;
        requested = null; // settled covers it; a later change, back to these owners too, calls for a new run
        persist(done);
    }

    /** What a newer metadata calls for. Holds this. */
    private void consider(ClusterMetadata metadata) {
        SettledOwnership now = SettledOwnership.of(metadata);
        if (settled == null && !unreadable) {
            settled = now;
            persist(now);
            return;
        }
        Set<String> leaving = metadata.members().stream().filter(member -> member.state() == MemberState.LEAVING)
                .map(Member::id).filter(id -> !id.equals(selfId)).collect(Collectors.toSet());
        if (!leaving.isEmpty()) {
            requested = null; // copies may come after any run asked for: the same owners later call for another
            if (settled != null && leaving.stream().anyMatch(settled.normal()::contains)) {
                settled = settled.without(leaving, metadata.epoch());
                persist(settled);
            }
        }
        boolean normalHere = metadata.member(selfId).map(Member::state).orElse(null) == MemberState.NORMAL;
        if (!normalHere || now.sameOwners(requested)) {
            return; // a joining or leaving node's own steps move its keys; a run for these owners is asked for already
        }
        if (unreadable || settled.mayLeaveCopiesOn(now, selfId)) {
            requested = now;
            LOG.info("ownership changed since this node's last complete cleanup ({}); cleaning up: the records it no longer "
                    + "owns go to their owners, then are dropped here", settled == null ? "not known"
                    : "epoch " + settled.epoch() + ", replication factor " + settled.replicationFactor() + ", normal "
                    + new TreeSet<>(settled.normal()) + "; now epoch " + now.epoch() + ", " + now.replicationFactor() + ", "
                    + new TreeSet<>(now.normal()));
            requestRun.run();
        }
    }

    /** Holds this. */
    private void persist(SettledOwnership ownership) {
        if (file == null) {
            return;
        }
        try {
            SettledOwnershipFile.write(file, ownership);
        } catch (IOException e) {
            LOG.warn("cannot store what this node's cleanup settled in {} ({}); after a restart it may keep copies it does "
                    + "not own until `ringkv cleanup`", file, e.getMessage());
        }
    }
}
