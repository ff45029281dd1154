package io.ringkv.cluster;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Who owned keys when this node's last cleanup was over with nothing left to hand over: the ids
 * of the {@code normal} members and the replication factor. Ownership can only have moved away
 * from this node since then if a member that was not normal is now (a join or a replacement
 * completed), or the factor went down: {@link #mayLeaveCopiesOn} says so, and this node runs a
 * cleanup ({@link OwnershipCleanups}). A member that left, or a factor that went up, gives this
 * node keys; it takes none away.
 *
 * @param epoch             the metadata epoch it was read from (0 for a view of the {@code --cluster} list)
 * @param replicationFactor the factor the cleanup placed keys by
 * @param normal            the ids of the members that were {@code normal}
 */
public record SettledOwnership(long epoch, int replicationFactor, Set<String> normal) {

    public SettledOwnership {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch " + epoch + " is negative");
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("replication factor " + replicationFactor + " is below 1");
        }
        normal = Set.copyOf(new TreeSet<>(normal));
    }

    /** The ownership {@code metadata} gives (initialised metadata). */
    public static SettledOwnership of(ClusterMetadata metadata) {
        return new SettledOwnership(metadata.epoch(), metadata.replicationFactor(), metadata.members().stream()
                .filter(member -> member.state() == MemberState.NORMAL).map(Member::id).collect(Collectors.toSet()));
    }

    /** The ownership a cleanup ran under: its view's normal members, by their metadata ids, and its factor. */
    static SettledOwnership of(MembershipView view, int replicationFactor) {
        return new SettledOwnership(view.epoch(), replicationFactor, view.states().entrySet().stream()
                .filter(entry -> entry.getValue() == MemberState.NORMAL).map(Map.Entry::getKey).map(Member::idOf)
                .collect(Collectors.toSet()));
    }

    /**
     * Whether the node {@code selfId}, whose cleanup settled under this ownership, may hold copies
     * it no longer owns under {@code now}: a member other than itself is normal now and was not,
     * or the factor is lower. (The node itself becoming normal takes nothing from it.)
     */
    public boolean mayLeaveCopiesOn(SettledOwnership now, String selfId) {
        return now.replicationFactor < replicationFactor
                || now.normal.stream().anyMatch(id -> !id.equals(selfId) && !normal.contains(id));
    }

    /**
     * As this, with the members {@code ids} no longer counted normal: what a node settled holds
     * once those members started to leave, since the leave hands their keys to this node as a
     * pending owner. Should the leave be rolled back, the member is normal again and this node
     * holds copies it does not own, which {@link #mayLeaveCopiesOn} then says. Its epoch is
     * {@code seenAt}'s, the leave's, if later: a run under an earlier view, which knew nothing of
     * the copies, must not count as settling them.
     */
    SettledOwnership without(Set<String> ids, long seenAt) {
        Set<String> rest = new TreeSet<>(normal);
        rest.removeAll(ids);
        return new SettledOwnership(Math.max(epoch, seenAt), replicationFactor, rest);
    }

    /** The same owners and factor, whatever the epochs. */
    boolean sameOwners(SettledOwnership other) {
        return other != null && replicationFactor == other.replicationFactor && normal.equals(other.normal);
    }
}
