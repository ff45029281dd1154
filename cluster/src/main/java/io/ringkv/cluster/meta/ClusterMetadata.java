package io.ringkv.cluster.meta;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The cluster's metadata at one point of the Raft log: its members, the replication factor, and
 * the epoch, which every applied change raises by one (so two nodes at the same epoch hold the
 * same metadata). Immutable; {@link #apply} returns the next value.
 *
 * <p>The replication factor is what every node's placement follows once it has applied it
 * ({@link io.ringkv.cluster.ReplicationFactor}): a key lives on its first {@code replicationFactor}
 * nodes in rendezvous order.
 *
 * @param epoch             0 before the cluster is initialised, then 1, 2, ...
 * @param replicationFactor copies of each key the cluster should keep; 0 before initialisation
 * @param members           sorted by id, ids unique
 */
public record ClusterMetadata(long epoch, int replicationFactor, List<Member> members) {

    /** Copies of each key unless told otherwise (capped at the member count). */
    public static final int DEFAULT_REPLICATION_FACTOR = 3;
    /** The most members the metadata holds: a node's index must fit a timestamp's 4 bits. */
    public static final int MEMBERS_MAX = 16;

    /** Before the first entry is applied. */
    public static final ClusterMetadata EMPTY = new ClusterMetadata(0, 0, List.of());

    public ClusterMetadata {
        if (epoch < 0 || replicationFactor < 0) {
            throw new IllegalArgumentException("epoch and replication factor must not be negative");
        }
        members = members.stream().sorted(Comparator.comparing(Member::id)).toList();
        for (int i = 1; i < members.size(); i++) {
            if (members.get(i).id().equals(members.get(i - 1).id())) {
                throw new IllegalArgumentException("member id " + members.get(i).id() + " appears twice");
            }
        }
    }

    public boolean initialised() {
        return epoch > 0;
    }

    public Optional<Member> member(String id) {
        return members.stream().filter(member -> member.id().equals(id)).findFirst();
    }

    /** Members that have not left: the most copies of a key the cluster can keep. */
    public int activeMembers() {
        return (int) members.stream().filter(member -> member.state() != MemberState.LEFT).count();
    }

    /**
     * The metadata after {@code command}, with the epoch raised by one.
     *
     * @throws MetadataRefusedException when the command does not apply to this metadata; nothing changes
     */
    public ClusterMetadata apply(MetadataCommand command) throws MetadataRefusedException {
        return switch (command) {
            case MetadataCommand.Initialize init -> initialize(init);
            case MetadataCommand.AddMember add -> {
                requireInitialised();
                if (member(add.member().id()).isPresent()) {
                    throw new MetadataRefusedException("member " + add.member().id() + " is already in the cluster");
                }
                if (members.stream().anyMatch(member -> member.url().equals(add.member().url()))) {
                    throw new MetadataRefusedException("a member already has the URL " + add.member().url());
                }
                if (members.size() >= MEMBERS_MAX) {
                    throw new MetadataRefusedException("the cluster has " + MEMBERS_MAX + " members, the most it can have");
                }
                List<Member> next = new ArrayList<>(members);
                next.add(add.member());
                yield new ClusterMetadata(epoch + 1, replicationFactor, next);
            }
            case MetadataCommand.SetMemberState set -> {
                requireInitialised();
                Member current = member(set.id()).orElseThrow(() -> new MetadataRefusedException("no member " + set.id()));
                List<Member> next = new ArrayList<>(members);
                next.set(next.indexOf(current), current.withState(set.state()));
                yield new ClusterMetadata(epoch + 1, replicationFactor, next);
            }
            case MetadataCommand.SetReplicationFactor set -> {
                requireInitialised();
                checkReplicationFactor(set.replicationFactor(), activeMembers());
                yield new ClusterMetadata(epoch + 1, set.replicationFactor(), members);
            }
        };
    }

    private ClusterMetadata initialize(MetadataCommand.Initialize init) throws MetadataRefusedException {
        if (initialised()) {
            throw new MetadataRefusedException("the cluster metadata is initialised already (epoch " + epoch + ")");
        }
        if (init.members().isEmpty() || init.members().size() > MEMBERS_MAX) {
            throw new MetadataRefusedException("a cluster has 1 to " + MEMBERS_MAX + " members, got " + init.members().size());
        }
        checkReplicationFactor(init.replicationFactor(), init.members().size());
        try {
            return new ClusterMetadata(1, init.replicationFactor(), init.members());
        } catch (IllegalArgumentException e) {
            throw new MetadataRefusedException(e.getMessage());
        }
    }

    private void requireInitialised() throws MetadataRefusedException {
        if (!initialised()) {
            throw new MetadataRefusedException("the cluster metadata is not initialised yet");
        }
    }

    private static void checkReplicationFactor(int factor, int members) throws MetadataRefusedException {
        if (factor < 1 || factor > members) {
            throw new MetadataRefusedException("the replication factor must be between 1 and the number of members ("
                    + members + "), got " + factor);
        }
    }
}
