package io.ringkv.cluster.meta;

import java.util.List;

/**
 * A change of the cluster metadata, as the Raft log carries it ({@link MetadataCodec}). Each one
 * that applies raises the epoch by one ({@link ClusterMetadata#apply}).
 */
public sealed interface MetadataCommand {

    /** Forms the metadata of a new cluster: its first entry, refused once there is metadata. */
    record Initialize(List<Member> members, int replicationFactor) implements MetadataCommand {
        public Initialize {
            members = List.copyOf(members);
        }
    }

    /**
     * Adds a member that is not one yet, as JOINING; applying it assigns the member's index (the
     * index in the command is not used).
     */
    record AddMember(Member member) implements MetadataCommand {
    }

    /**
     * Adds {@code member} as JOINING to take the place of the NORMAL member {@code deadId}: when it
     * turns NORMAL, {@code deadId} turns LEFT in the same step. That the dead node is really down is
     * for the caller to check. {@code member.replacing()} is {@code deadId} (or null, filled in).
     */
    record Replace(String deadId, Member member) implements MetadataCommand {
        public Replace {
            java.util.Objects.requireNonNull(deadId, "deadId");
            if (member.replacing() == null) {
                member = member.withReplacing(deadId);
            } else if (!member.replacing().equals(deadId)) {
                throw new IllegalArgumentException("member " + member.id() + " replaces " + member.replacing()
                        + ", not " + deadId);
            }
        }
    }

    /**
     * Moves a member to another state ({@link MemberTransitions} lists the moves allowed). With
     * {@code from}, only when the member is in that state when the command applies: a step that
     * read the state and then asks for the move cannot, should the member have moved meanwhile,
     * make another move with the same target (joining→left aborts a join, leaving→left finishes
     * a decommission; joining→normal finishes a join, leaving→normal aborts a decommission).
     *
     * @param from the state the member must be in; null: any state the move is allowed from
     */
    record SetMemberState(String id, MemberState state, MemberState from) implements MetadataCommand {
        public SetMemberState {
            java.util.Objects.requireNonNull(id, "id");
            java.util.Objects.requireNonNull(state, "state");
        }

        /** The move from any state it is allowed from. */
        public SetMemberState(String id, MemberState state) {
            this(id, state, null);
        }
    }

    /** Sets the replication factor, which placement and the default `replicas` follow once applied. */
    record SetReplicationFactor(int replicationFactor) implements MetadataCommand {
    }
}
