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
 * <p>Membership changes one at a time ({@link #changeInProgress}): a member joins (JOINING, then
 * NORMAL; a replacement's dead member turns LEFT in the same step) or leaves (NORMAL, LEAVING,
 * LEFT), and either may be aborted. {@link #apply} refuses every other move. Each member that has
 * not left holds its own clock index ({@link Member#index}); a LEFT one keeps its old index for the
 * record, but that index is free for the next member.
 *
 * @param epoch             0 before the cluster is initialised, then 1, 2, ...
 * @param replicationFactor copies of each key the cluster should keep; 0 before initialisation
 * @param members           sorted by id, ids unique, indexes unique among the members that have not left
 */
public record ClusterMetadata(long epoch, int replicationFactor, List<Member> members) {

    /** Copies of each key unless told otherwise (capped at the member count). */
    public static final int DEFAULT_REPLICATION_FACTOR = 3;
    /** The most members the metadata holds: a node's index must fit a timestamp's 4 bits. */
    public static final int MEMBERS_MAX = Member.INDEX_MAX + 1;
    /**
     * The most entries the member list holds, LEFT ones included. LEFT entries are only a record;
     * a join past this many drops one so that the list (and a snapshot) stays bounded.
     */
    public static final int ENTRIES_MAX = 256;

    /** Before the first entry is applied. */
    public static final ClusterMetadata EMPTY = new ClusterMetadata(0, 0, List.of());

    public ClusterMetadata {
        if (epoch < 0 || replicationFactor < 0) {
            throw new IllegalArgumentException("epoch and replication factor must not be negative");
        }
        members = members.stream().sorted(Comparator.comparing(Member::id)).toList();
        if (members.size() > ENTRIES_MAX) {
            throw new IllegalArgumentException(members.size() + " member entries; at most " + ENTRIES_MAX);
        }
        for (int i = 1; i < members.size(); i++) {
            if (members.get(i).id().equals(members.get(i - 1).id())) {
                throw new IllegalArgumentException("member id " + members.get(i).id() + " appears twice");
            }
        }
        boolean[] used = new boolean[MEMBERS_MAX];
        for (Member member : members) {
            if (member.state() != MemberState.LEFT) {
                if (used[member.index()]) {
                    throw new IllegalArgumentException("index " + member.index() + " is held by two members that have not left");
                }
                used[member.index()] = true;
            }
        }
    }

    public boolean initialised() {
        return epoch > 0;
    }

    public Optional<Member> member(String id) {
        return members.stream().filter(member -> member.id().equals(id)).findFirst();
    }

    /** Members that have not left, sorted by id. */
    public List<Member> active() {
        return members.stream().filter(member -> member.state() != MemberState.LEFT).toList();
    }

    /** Members that have not left: the most copies of a key the cluster can keep. */
    public int activeMembers() {
        return active().size();
    }

    /** NORMAL members: the bound of the replication factor, since joining and leaving ones come and go. */
    public int normalMembers() {
        return (int) members.stream().filter(member -> member.state() == MemberState.NORMAL).count();
    }

    /** The member JOINING or LEAVING, if one is: the change under way, which must end before another starts. */
    public Optional<Member> changeInProgress() {
        return members.stream().filter(member -> member.state() == MemberState.JOINING
                || member.state() == MemberState.LEAVING).findFirst();
    }

    /**
     * The metadata after {@code command}, with the epoch raised by one.
     *
     * @throws MetadataRefusedException when the command does not apply to this metadata; nothing changes
     */
    public ClusterMetadata apply(MetadataCommand command) throws MetadataRefusedException {
        if (!(command instanceof MetadataCommand.Initialize) && !initialised()) {
            throw new MetadataRefusedException("the cluster metadata is not initialised yet");
        }
        return switch (command) {
            case MetadataCommand.Initialize init -> initialize(init);
            case MetadataCommand.AddMember add -> {
                if (add.member().replacing() != null) {
                    throw new MetadataRefusedException("member " + add.member().id() + " replaces "
                            + add.member().replacing() + ": add it with Replace, not AddMember");
                }
                yield join(add.member());
            }
            case MetadataCommand.Replace replace -> {
                Member dead = member(replace.deadId()).orElseThrow(() -> new MetadataRefusedException(
                        "no member " + replace.deadId() + " to replace"));
                if (dead.state() != MemberState.NORMAL) {
                    throw new MetadataRefusedException("member " + dead.id() + " is " + dead.state().label()
                            + "; only a normal member can be replaced");
                }
                yield join(replace.member());
            }
            case MetadataCommand.SetMemberState set -> MemberTransitions.apply(this, set.id(), set.state(), set.from());
            case MetadataCommand.SetReplicationFactor set -> {
                requireNoChangeInProgress("changing the replication factor");
                checkReplicationFactor(set.replicationFactor(), normalMembers());
                yield new ClusterMetadata(epoch + 1, set.replicationFactor(), members);
            }
        };
    }

    /** The next epoch with {@code changed} in place of the members of the same ids, and none of {@code removed}. */
    ClusterMetadata with(List<Member> changed, List<String> removed) {
        List<String> ids = changed.stream().map(Member::id).toList();
        List<Member> next = new ArrayList<>(members.stream()
                .filter(member -> !ids.contains(member.id()) && !removed.contains(member.id())).toList());
        next.addAll(changed);
        return new ClusterMetadata(epoch + 1, replicationFactor, next);
    }

    /** Adds {@code joining} as JOINING at the lowest free index; a LEFT entry of the same id or URL gives way to it. */
    private ClusterMetadata join(Member joining) throws MetadataRefusedException {
        if (joining.state() != MemberState.JOINING) {
            throw new MetadataRefusedException("a new member comes in as joining, got member " + joining.id() + " as "
                    + joining.state().label());
        }
        for (Member member : active()) {
            if (member.id().equals(joining.id()) || member.url().equals(joining.url())) {
                throw new MetadataRefusedException("member " + member.id() + " (" + member.url() + ") is already a member, state "
                        + member.state().label() + "; remove it first (decommission it, or replace it under another URL)");
            }
        }
        requireNoChangeInProgress("adding member " + joining.id());
        boolean[] used = new boolean[MEMBERS_MAX];
        active().forEach(member -> used[member.index()] = true);
        int index = 0;
        while (index < MEMBERS_MAX && used[index]) {
            index++;
        }
        if (index == MEMBERS_MAX) {
            throw new MetadataRefusedException("the cluster has " + MEMBERS_MAX + " members, and " + MEMBERS_MAX
                    + " members at most fit the clock's index; decommission one first");
        }
        List<String> gone = new ArrayList<>(members.stream().filter(member -> member.id().equals(joining.id())
                || member.url().equals(joining.url())).map(Member::id).toList());
        if (members.size() - gone.size() >= ENTRIES_MAX) {
            // Full of records of members that left: the first by id gives way (the same on every replica).
            members.stream().filter(member -> member.state() == MemberState.LEFT).findFirst()
                    .ifPresent(member -> gone.add(member.id()));
        }
        return with(List.of(joining.withIndex(index)), gone);
    }

    /** Refuses {@code what} while a member is JOINING or LEAVING: changes go one at a time. */
    void requireNoChangeInProgress(String what) throws MetadataRefusedException {
        Optional<Member> busy = changeInProgress();
        if (busy.isPresent()) {
            throw new MetadataRefusedException(what + " must wait: a change is in progress, member " + busy.get().id()
                    + " is " + busy.get().state().label() + "; finish or abort that first");
        }
    }

    private ClusterMetadata initialize(MetadataCommand.Initialize init) throws MetadataRefusedException {
        if (initialised()) {
            throw new MetadataRefusedException("the cluster metadata is initialised already (epoch " + epoch + ")");
        }
        if (init.members().isEmpty() || init.members().size() > MEMBERS_MAX) {
            throw new MetadataRefusedException("a cluster has 1 to " + MEMBERS_MAX + " members, got " + init.members().size());
        }
        for (Member member : init.members()) {
            if (member.state() != MemberState.NORMAL || member.replacing() != null) {
                throw new MetadataRefusedException("an initial member is normal and replaces none, got " + member);
            }
        }
        checkReplicationFactor(init.replicationFactor(), init.members().size());
        try {
            return new ClusterMetadata(1, init.replicationFactor(), init.members());
        } catch (IllegalArgumentException e) {
            throw new MetadataRefusedException(e.getMessage());
        }
    }

    private static void checkReplicationFactor(int factor, int members) throws MetadataRefusedException {
        if (factor < 1 || factor > members) {
            throw new MetadataRefusedException("the replication factor must be between 1 and the number of members ("
                    + members + "), got " + factor + "; only normal members count");
        }
    }
}
