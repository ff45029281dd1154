package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The Raft configuration the metadata calls for, one row per case. */
class VoterRuleTest {

    /**
     * Each row: the members as "id:state" (n=normal, j=joining, l=leaving, x=left), the current
     * voters, --meta-voters, then the voters and listeners expected.
     */
    static Stream<Arguments> rows() {
        return Stream.of(
                row("a:n b:n c:n", "a b c", 3, "a b c", ""),
                // A fourth member listens; a joining one never votes.
                row("a:n b:n c:n d:n", "a b c", 3, "a b c", "d"),
                row("a:n b:n c:n d:j", "a b c", 3, "a b c", "d"),
                // A voter that starts leaving hands its vote to the normal non-voter and listens meanwhile.
                row("a:l b:n c:n d:n", "a b c", 3, "b c d", "a"),
                // ... and is dropped once it has left.
                row("a:x b:n c:n d:n", "b c d", 3, "b c d", ""),
                // Nobody can take the vote: the voters shrink (a decommission the replication factor allows).
                row("a:l b:n c:n", "a b c", 3, "b c", "a"),
                // A replacement that turned normal takes the dead voter's vote in the same step.
                row("a:x b:n c:n d:n", "a b c", 3, "b c d", ""),
                // Current voters keep their votes even when a member with a lower id is normal.
                row("a:n b:n c:n d:n e:n", "c d e", 3, "c d e", "a b"),
                // A vote freed goes to the lowest id among the normal non-voters.
                row("a:n b:n c:x d:n e:n", "c d e", 3, "a d e", "b"),
                // Five voters when asked, and fewer when the cluster is smaller.
                row("a:n b:n c:n d:n e:n f:n", "a b c", 5, "a b c d e", "f"),
                row("a:n b:n", "a b", 3, "a b", ""),
                // A conf naming members the metadata does not list (or lists as left) loses them.
                row("b:n c:n d:n", "a b c", 3, "b c d", ""));
    }

    @ParameterizedTest
    @MethodSource("rows")
    void votersAndListeners(String members, String current, int votersMax, String voters, String listeners) {
        VoterRule.Conf conf = VoterRule.target(metadata(members), ids(current), votersMax);
        assertThat(conf.voterIds(), equalTo(ids(voters)));
        assertThat(conf.listenerIds(), equalTo(ids(listeners)));
    }

    private static Arguments row(String members, String current, int votersMax, String voters, String listeners) {
        return Arguments.of(members, current, votersMax, voters, listeners);
    }

    private static Set<String> ids(String text) {
        return text.isBlank() ? Set.of() : Set.copyOf(Arrays.asList(text.split(" ")));
    }

    private static ClusterMetadata metadata(String members) {
        List<Member> list = new ArrayList<>();
        int index = 0;
        for (String each : members.split(" ")) {
            String[] parts = each.split(":");
            MemberState state = switch (parts[1]) {
                case "n" -> MemberState.NORMAL;
                case "j" -> MemberState.JOINING;
                case "l" -> MemberState.LEAVING;
                default -> MemberState.LEFT;
            };
            list.add(new Member(parts[0], "http://127.0.0.1:" + (7000 + index), state, index++, null));
        }
        return new ClusterMetadata(5, 1, list);
    }
}
