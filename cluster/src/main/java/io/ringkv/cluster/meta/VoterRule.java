package io.ringkv.cluster.meta;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which members vote in the metadata group and which follow its log as listeners, as the metadata
 * calls for: up to {@code votersMax} {@code normal} members vote, the current voters that are still
 * {@code normal} first (a vote moves only when its holder stops being {@code normal}), then the
 * other {@code normal} members by id; every other member that has not left listens (a
 * {@code joining} or {@code leaving} one never votes); {@code left} members are in neither.
 * Stateless.
 */
public final class VoterRule {

    /**
     * A Raft configuration as member lists, each sorted by id.
     *
     * @param voters    the members that vote
     * @param listeners the members that follow the log without a vote
     */
    public record Conf(List<Member> voters, List<Member> listeners) {
        public Conf {
            voters = List.copyOf(voters);
            listeners = List.copyOf(listeners);
        }

        public Set<String> voterIds() {
            return voters.stream().map(Member::id).collect(Collectors.toUnmodifiableSet());
        }

        public Set<String> listenerIds() {
            return listeners.stream().map(Member::id).collect(Collectors.toUnmodifiableSet());
        }
    }

    private VoterRule() {
    }

    /**
     * @param metadata      the applied metadata (initialised)
     * @param currentVoters the ids of the voters of the Raft configuration now
     * @param votersMax     {@code --meta-voters}: 3 or 5
     */
    public static Conf target(ClusterMetadata metadata, Collection<String> currentVoters, int votersMax) {
        List<Member> normal = metadata.members().stream().filter(member -> member.state() == MemberState.NORMAL).toList();
        List<Member> voters = new ArrayList<>(votersMax);
        // members() is sorted by id, so each pass takes its members in id order.
        for (Member member : normal) {
            if (voters.size() < votersMax && currentVoters.contains(member.id())) {
                voters.add(member);
            }
        }
        for (Member member : normal) {
            if (voters.size() < votersMax && !currentVoters.contains(member.id())) {
                voters.add(member);
            }
        }
        List<Member> listeners = metadata.members().stream()
                .filter(member -> member.state() != MemberState.LEFT && !voters.contains(member)).toList();
        return new Conf(voters.stream().sorted(java.util.Comparator.comparing(Member::id)).toList(), listeners);
    }
}
