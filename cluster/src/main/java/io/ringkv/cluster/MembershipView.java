package io.ringkv.cluster;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who is in the cluster at one metadata epoch, as placement needs it. Immutable.
 *
 * <ul>
 *   <li><b>members</b>: every member that has not left, joining ones included: the peers a node
 *       talks to (replica calls, hints, probes).
 *   <li><b>owners</b> ({@link #placement()}): the members keys live on now, {@code normal} and
 *       {@code leaving} ones. Reads ask them; the replication factor and {@code from} count them.
 *   <li><b>future owners</b> ({@link #futurePlacement()}): who owns keys once the change in progress
 *       is done: a joining member counts, a leaving one and the member a joining one replaces do
 *       not. Without a change in progress they are the owners.
 * </ul>
 *
 * A write goes to its owners and also to its <b>pending</b> replicas ({@link #pending}): the
 * future owners of its key that do not own it yet. It is acknowledged once {@code ack} of its
 * owners and {@code ack} of its future owners took it ({@link #writeSet}), so a write acknowledged
 * during a change is held by a quorum of the owners after it, and by a quorum of the owners before
 * it should the change be rolled back. Cassandra asks for {@code ack + pending} of all of them
 * instead, which implies both and waits for more: a join then delays every write of the keys it
 * takes on the slowest of three replicas (often the joining node, busy streaming), where two owners
 * that stay owners are enough.
 *
 * @param epoch the metadata epoch it was made from; 0 for a view made from the {@code --cluster}
 *              list before the metadata is known
 */
public record MembershipView(long epoch, List<ClusterNode> members, Map<ClusterNode, MemberState> states,
                             RendezvousPlacement placement, RendezvousPlacement futurePlacement, boolean changing,
                             java.util.Set<ClusterNode> replaced) {

    public MembershipView {
        members = List.copyOf(members);
        states = Collections.unmodifiableMap(new LinkedHashMap<>(states));
        replaced = java.util.Set.copyOf(replaced);
    }

    /** Every node of a list normal, at epoch 0: the cluster as its {@code --cluster} list names it. */
    public static MembershipView ofList(List<ClusterNode> nodes) {
        Map<ClusterNode, MemberState> states = new LinkedHashMap<>();
        nodes.forEach(node -> states.put(node, MemberState.NORMAL));
        RendezvousPlacement placement = new RendezvousPlacement(nodes);
        return new MembershipView(0, nodes, states, placement, placement, false, java.util.Set.of());
    }

    /**
     * The view of initialised metadata.
     *
     * @throws IllegalArgumentException when it has no owner or a member URL does not parse
     */
    public static MembershipView of(ClusterMetadata metadata) {
        return of(metadata, List.of());
    }

    /**
     * As {@link #of(ClusterMetadata)}, with the members listed in {@code order} first, in that order
     * (the previous view's: the {@code --cluster} list's order, which the status and the dashboard
     * show), then any others in the metadata's order. Placement does not depend on it.
     */
    public static MembershipView of(ClusterMetadata metadata, List<ClusterNode> order) {
        List<ClusterNode> members = new ArrayList<>();
        List<ClusterNode> owners = new ArrayList<>();
        List<ClusterNode> future = new ArrayList<>();
        Map<ClusterNode, MemberState> states = new LinkedHashMap<>();
        List<String> replaced = metadata.members().stream().map(Member::replacing).filter(id -> id != null).toList();
        boolean changing = false;
        java.util.Set<ClusterNode> replacedNodes = new java.util.HashSet<>();
        for (Member member : metadata.members()) {
            if (member.state() == MemberState.LEFT) {
                continue;
            }
            ClusterNode node = ClusterNode.parse(member.url());
            members.add(node);
            states.put(node, member.state());
            switch (member.state()) {
                case NORMAL -> {
                    owners.add(node);
                    if (!replaced.contains(member.id())) {
                        future.add(node);
                    } else {
                        replacedNodes.add(node);
                    }
                }
                case LEAVING -> {
                    owners.add(node);
                    changing = true;
                }
                case JOINING -> {
                    future.add(node);
                    changing = true;
                }
                default -> throw new IllegalStateException("unexpected state " + member.state());
            }
        }
        if (owners.isEmpty()) {
            throw new IllegalArgumentException("the metadata at epoch " + metadata.epoch() + " has no normal member");
        }
        java.util.Comparator<ClusterNode> byOrder = java.util.Comparator.comparingInt(node -> {
            int at = order.indexOf(node);
            return at < 0 ? Integer.MAX_VALUE : at;
        });
        members.sort(byOrder); // stable: nodes not in the order keep the metadata's
        Map<ClusterNode, MemberState> ordered = new LinkedHashMap<>();
        for (ClusterNode node : members) {
            ordered.put(node, states.get(node));
        }
        RendezvousPlacement placement = new RendezvousPlacement(owners);
        RendezvousPlacement futurePlacement = !changing || future.isEmpty() ? placement : new RendezvousPlacement(future);
        boolean inProgress = changing && !future.isEmpty();
        return new MembershipView(metadata.epoch(), members, ordered, placement, futurePlacement, inProgress,
                inProgress ? replacedNodes : java.util.Set.of());
    }

    /** Owners now: the nodes {@link #placement()} places keys on. */
    public List<ClusterNode> owners() {
        return placement.nodes();
    }

    public Optional<MemberState> state(ClusterNode node) {
        return Optional.ofNullable(states.get(node));
    }

    public boolean isMember(ClusterNode node) {
        return states.containsKey(node);
    }

    /**
     * The replicas of {@code key} a write with {@code from} copies goes to besides its owners: its
     * first {@code from} future owners (fewer when there are fewer) that are not among its first
     * {@code from} owners. Empty without a change in progress.
     */
    public List<ClusterNode> pending(byte[] key, int from) {
        if (!changing) {
            return List.of();
        }
        List<ClusterNode> now = placement.replicas(key, Math.min(from, placement.clusterSize()));
        List<ClusterNode> later = futurePlacement.replicas(key, Math.min(from, futurePlacement.clusterSize()));
        List<ClusterNode> pending = null;
        for (ClusterNode node : later) {
            if (!now.contains(node)) {
                if (pending == null) {
                    pending = new ArrayList<>(2);
                }
                pending.add(node);
            }
        }
        return pending == null ? List.of() : pending;
    }

    /**
     * The replicas a write with {@code from} copies of {@code key} goes to, and the acknowledgements
     * it needs, given its owners {@code owners} and {@code ack}. Without a pending replica: the
     * owners, {@code ack} of them. With one: the owners and the pending replicas, and
     * {@code ack} of the owners as well as {@code ack} of the future owners (fewer when there are
     * fewer). A member being replaced (it is down; a node takes its place) is left out of the write
     * and of the owners counted, and their {@code ack} is one fewer per such member: the dead member
     * could never answer, so counting it would need every other replica to.
     */
    public WriteSet writeSet(byte[] key, List<ClusterNode> owners, int from, int ack) {
        List<ClusterNode> pending = pending(key, from);
        if (pending.isEmpty()) {
            return WriteSet.of(owners, ack);
        }
        List<ClusterNode> nodes = new ArrayList<>(owners.size() + pending.size());
        int substituted = 0;
        for (ClusterNode owner : owners) {
            if (replaced.contains(owner)) {
                substituted++;
            } else {
                nodes.add(owner);
            }
        }
        List<ClusterNode> staying = List.copyOf(nodes);
        nodes.addAll(pending);
        List<ClusterNode> future = futurePlacement.replicas(key, Math.min(from, futurePlacement.clusterSize()));
        return new WriteSet(nodes, new Group(staying, Math.max(0, Math.min(ack - substituted, staying.size()))),
                new Group(future, Math.min(ack, future.size())));
    }

    /**
     * The replicas of a write ({@link #writeSet}) and the groups among them whose acknowledgements
     * it needs: {@code owners} always, {@code futureOwners} too when not null (a change in progress
     * gives the key pending replicas).
     */
    public record WriteSet(List<ClusterNode> nodes, Group owners, Group futureOwners) {
        static WriteSet of(List<ClusterNode> owners, int ack) {
            return new WriteSet(owners, new Group(owners, ack), null);
        }
    }

    /** Some of a write's replicas, and how many of them must acknowledge it. */
    public record Group(List<ClusterNode> nodes, int ack) {
        public Group {
            nodes = List.copyOf(nodes);
        }

        boolean contains(ClusterNode node) {
            return nodes.contains(node);
        }
    }

    /**
     * Whether {@code node} is among {@code key}'s first {@code rf} owners now, or will be once the
     * change in progress is done: the copies the cluster keeps and maintains (a copy elsewhere was
     * left by an owners' change or a write with a {@code from} above the factor).
     */
    public boolean ownsNowOrLater(byte[] key, ClusterNode node, int rf) {
        return placement.contains(node) && placement.owns(key, node, Math.min(rf, placement.clusterSize()))
                || futurePlacement.contains(node) && futurePlacement.owns(key, node, Math.min(rf, futurePlacement.clusterSize()));
    }

    /** Same members in the same states: two such views place every key alike. */
    public boolean sameLayout(MembershipView other) {
        return states.equals(other.states);
    }
}
