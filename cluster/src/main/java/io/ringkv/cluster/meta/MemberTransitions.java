package io.ringkv.cluster.meta;

import java.util.List;

/**
 * The moves of a member from one state to another that {@link MetadataCommand.SetMemberState} may
 * make, and what each does besides: a replacement that turns NORMAL takes its dead member to LEFT,
 * a decommission may not leave fewer NORMAL members than the replication factor. Stateless.
 */
final class MemberTransitions {

    private static final String ALLOWED = "joining -> normal (finish a join) or left (abort it), "
            + "normal -> leaving (start a decommission), leaving -> left (finish it) or normal (abort it)";

    private MemberTransitions() {
    }

    /** @param expected the state the member must be in; null: any the move is allowed from */
    static ClusterMetadata apply(ClusterMetadata metadata, String id, MemberState target, MemberState expected)
            throws MetadataRefusedException {
        Member member = metadata.member(id).orElseThrow(() -> new MetadataRefusedException("no member " + id));
        MemberState from = member.state();
        if (expected != null && from != expected) {
            throw new MetadataRefusedException("member " + id + " is " + from.label() + ", not " + expected.label()
                    + ": it moved since the state was read; nothing changed");
        }
        if (from == target) {
            throw new MetadataRefusedException("member " + id + " is already " + target.label());
        }
        return switch (from) {
            case JOINING -> switch (target) {
                case NORMAL -> finishJoin(metadata, member);
                // Kept as LEFT for the record; a LEFT member's index is free for the next one.
                case LEFT -> metadata.with(List.of(member.withState(MemberState.LEFT).withReplacing(null)), List.of());
                default -> throw refused(member, target);
            };
            case NORMAL -> {
                if (target != MemberState.LEAVING) {
                    throw refused(member, target);
                }
                metadata.requireNoChangeInProgress("decommissioning member " + id);
                int left = metadata.normalMembers() - 1;
                if (left < metadata.replicationFactor()) {
                    throw new MetadataRefusedException("decommissioning " + id + " would leave " + left
                            + " members for replication factor " + metadata.replicationFactor()
                            + "; lower it first with ringkv meta set-replication-factor, or join another node first");
                }
                yield metadata.with(List.of(member.withState(MemberState.LEAVING)), List.of());
            }
            case LEAVING -> switch (target) {
                case LEFT, NORMAL -> metadata.with(List.of(member.withState(target)), List.of());
                default -> throw refused(member, target);
            };
            case LEFT -> throw refused(member, target);
        };
    }

    private static ClusterMetadata finishJoin(ClusterMetadata metadata, Member joining) throws MetadataRefusedException {
        Member joined = joining.withState(MemberState.NORMAL).withReplacing(null);
        if (joining.replacing() == null) {
            return metadata.with(List.of(joined), List.of());
        }
        Member dead = metadata.member(joining.replacing()).orElseThrow(() -> new MetadataRefusedException(
                "member " + joining.id() + " replaces " + joining.replacing() + ", which is not a member; abort the join"));
        if (dead.state() != MemberState.NORMAL) {
            // Cannot happen while changes go one at a time; refused rather than guessed at if it does.
            throw new MetadataRefusedException("member " + joining.id() + " replaces " + dead.id() + ", which is "
                    + dead.state().label() + ", not normal; abort the join");
        }
        return metadata.with(List.of(joined, dead.withState(MemberState.LEFT)), List.of());
    }

    private static MetadataRefusedException refused(Member member, MemberState target) {
        return new MetadataRefusedException("member " + member.id() + " cannot go from " + member.state().label() + " to "
                + target.label() + "; the moves allowed are " + ALLOWED);
    }
}
