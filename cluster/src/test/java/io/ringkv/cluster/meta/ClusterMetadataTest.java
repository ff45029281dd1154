package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterNodes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterMetadataTest {

    /** A cluster of {@code size} NORMAL members n0, n1, ... at replication factor {@code factor}. */
    private static ClusterMetadata cluster(int size, int factor) throws MetadataRefusedException {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            members.add(new Member("n" + i, url("n" + i), MemberState.NORMAL, i, null));
        }
        return ClusterMetadata.EMPTY.apply(new MetadataCommand.Initialize(members, factor));
    }

    private static String url(String id) {
        return "http://" + id + ".example:7000";
    }

    /** A member asking to join; the index 9 in it is not the one it gets. */
    private static Member joining(String id) {
        return new Member(id, url(id), MemberState.JOINING, 9, null);
    }

    private static MetadataCommand set(String id, MemberState state) {
        return new MetadataCommand.SetMemberState(id, state);
    }

    private static Member member(ClusterMetadata metadata, String id) {
        return metadata.member(id).orElseThrow();
    }

    private static String refusal(ClusterMetadata metadata, MetadataCommand command) {
        return assertThrows(MetadataRefusedException.class, () -> metadata.apply(command)).getMessage();
    }

    /** Member "nx" of a 4-node cluster at replication factor 2, brought to {@code state}. */
    private static ClusterMetadata withNxIn(MemberState state) throws MetadataRefusedException {
        ClusterMetadata metadata = cluster(3, 2).apply(new MetadataCommand.AddMember(joining("nx")));
        if (state == MemberState.JOINING) {
            return metadata;
        }
        metadata = metadata.apply(set("nx", MemberState.NORMAL));
        if (state == MemberState.NORMAL) {
            return metadata;
        }
        metadata = metadata.apply(set("nx", MemberState.LEAVING));
        return state == MemberState.LEAVING ? metadata : metadata.apply(set("nx", MemberState.LEFT));
    }

    private record Move(MemberState from, MemberState to, String refusedWith) {
    }

    @Test
    void onlyTheMovesOfAJoinAndADecommissionAreAllowed() throws Exception {
        String other = "the moves allowed are";
        List<Move> table = List.of(
                new Move(MemberState.JOINING, MemberState.JOINING, "already joining"),
                new Move(MemberState.JOINING, MemberState.NORMAL, null),
                new Move(MemberState.JOINING, MemberState.LEAVING, other),
                new Move(MemberState.JOINING, MemberState.LEFT, null),
                new Move(MemberState.NORMAL, MemberState.JOINING, other),
                new Move(MemberState.NORMAL, MemberState.NORMAL, "already normal"),
                new Move(MemberState.NORMAL, MemberState.LEAVING, null),
                new Move(MemberState.NORMAL, MemberState.LEFT, other),
                new Move(MemberState.LEAVING, MemberState.JOINING, other),
                new Move(MemberState.LEAVING, MemberState.NORMAL, null),
                new Move(MemberState.LEAVING, MemberState.LEAVING, "already leaving"),
                new Move(MemberState.LEAVING, MemberState.LEFT, null),
                new Move(MemberState.LEFT, MemberState.JOINING, other),
                new Move(MemberState.LEFT, MemberState.NORMAL, other),
                new Move(MemberState.LEFT, MemberState.LEAVING, other),
                new Move(MemberState.LEFT, MemberState.LEFT, "already left"));
        for (Move move : table) {
            ClusterMetadata before = withNxIn(move.from());
            String name = move.from() + " -> " + move.to();
            if (move.refusedWith() == null) {
                ClusterMetadata after = before.apply(set("nx", move.to()));
                assertThat(name, member(after, "nx").state(), is(move.to()));
                assertThat(name, after.epoch(), is(before.epoch() + 1));
            } else {
                String message = refusal(before, set("nx", move.to()));
                assertThat(name, message, containsString(move.refusedWith()));
                if (move.refusedWith().equals(other)) {
                    assertThat(name, message, containsString("from " + move.from().label() + " to " + move.to().label()));
                }
            }
        }
        assertThat(refusal(cluster(3, 2), set("nq", MemberState.LEAVING)), containsString("no member nq"));
    }

    @Test
    void aJoinerGetsTheLowestIndexNotHeldByAMemberThatHasNotLeft() throws Exception {
        ClusterMetadata metadata = cluster(3, 2).apply(new MetadataCommand.AddMember(joining("nx")));
        assertThat(member(metadata, "nx").index(), is(3));
        metadata = metadata.apply(set("nx", MemberState.NORMAL))
                .apply(set("n1", MemberState.LEAVING)).apply(set("n1", MemberState.LEFT));
        // n1 left: its slot is the lowest free.
        metadata = metadata.apply(new MetadataCommand.AddMember(joining("ny")));
        assertThat(member(metadata, "ny").index(), is(1));
        assertThat(member(metadata, "n1").index(), is(1));
        metadata = metadata.apply(set("ny", MemberState.NORMAL)).apply(new MetadataCommand.AddMember(joining("nz")));
        assertThat(member(metadata, "nz").index(), is(4));
        // An aborted join frees its slot too.
        metadata = metadata.apply(set("nz", MemberState.LEFT)).apply(new MetadataCommand.AddMember(joining("nw")));
        assertThat(member(metadata, "nw").index(), is(4));
        assertThat(metadata.active().stream().map(Member::id).toList(), equalTo(List.of("n0", "n2", "nw", "nx", "ny")));
        assertThat(metadata.normalMembers(), is(4));
    }

    @Test
    void sixteenMembersAtMostAndALeftOneMakesRoom() throws Exception {
        ClusterMetadata full = cluster(16, 3);
        assertThat(refusal(full, new MetadataCommand.AddMember(joining("nx"))), containsString("16 members at most"));
        ClusterMetadata room = full.apply(set("n7", MemberState.LEAVING)).apply(set("n7", MemberState.LEFT))
                .apply(new MetadataCommand.AddMember(joining("nx")));
        assertThat(member(room, "nx").index(), is(7));
        assertThat(room.activeMembers(), is(16));
    }

    @Test
    void aMemberThatLeftMayComeBackUnderItsIdOrUrlAndTheOldEntryGoes() throws Exception {
        ClusterMetadata metadata = cluster(4, 2).apply(set("n0", MemberState.LEAVING)).apply(set("n0", MemberState.LEFT));
        ClusterMetadata back = metadata.apply(new MetadataCommand.AddMember(joining("n0")));
        assertThat(back.members().size(), is(4));
        assertThat(member(back, "n0"), equalTo(new Member("n0", url("n0"), MemberState.JOINING, 0, null)));
        // Same URL under another id: the LEFT entry gives way as well.
        ClusterMetadata renamed = metadata.apply(new MetadataCommand.AddMember(
                new Member("nnew", url("n0"), MemberState.JOINING, 0, null)));
        assertThat(renamed.member("n0"), is(Optional.empty()));
        assertThat(member(renamed, "nnew").url(), is(url("n0")));
    }

    @Test
    void anAddIsRefusedForAMemberAlreadyInAStateOtherThanJoiningOrAReplacement() throws Exception {
        ClusterMetadata metadata = cluster(3, 2);
        assertThat(refusal(metadata, new MetadataCommand.AddMember(joining("n1"))),
                containsString("n1 (" + url("n1") + ") is already a member, state normal"));
        assertThat(refusal(metadata, new MetadataCommand.AddMember(new Member("nq", url("n2"), MemberState.JOINING, 0, null))),
                containsString("is already a member, state normal"));
        assertThat(refusal(metadata, new MetadataCommand.AddMember(joining("nx").withState(MemberState.NORMAL))),
                containsString("comes in as joining"));
        assertThat(refusal(metadata, new MetadataCommand.AddMember(joining("nx").withReplacing("n0"))),
                containsString("with Replace"));
        assertThat(refusal(ClusterMetadata.EMPTY, new MetadataCommand.AddMember(joining("nx"))), containsString("not initialised"));
    }

    @Test
    void aFinishedReplacementTakesTheDeadMembersPlaceInOneStep() throws Exception {
        ClusterMetadata metadata = cluster(3, 3);
        ClusterMetadata replacing = metadata.apply(new MetadataCommand.Replace("n1", joining("nx")));
        assertThat(member(replacing, "nx"), equalTo(new Member("nx", url("nx"), MemberState.JOINING, 3, "n1")));
        assertThat(member(replacing, "n1").state(), is(MemberState.NORMAL));
        assertThat(replacing.changeInProgress(), is(Optional.of(member(replacing, "nx"))));

        ClusterMetadata done = replacing.apply(set("nx", MemberState.NORMAL));
        assertThat(done.epoch(), is(replacing.epoch() + 1));
        assertThat(member(done, "nx").state(), is(MemberState.NORMAL));
        assertThat(member(done, "nx").replacing(), nullValue());
        assertThat(member(done, "n1").state(), is(MemberState.LEFT));
        assertThat(done.normalMembers(), is(3));
        assertThat(done.changeInProgress(), is(Optional.empty()));

        // Aborted, the dead member stays as it was.
        ClusterMetadata aborted = replacing.apply(set("nx", MemberState.LEFT));
        assertThat(member(aborted, "n1").state(), is(MemberState.NORMAL));
        assertThat(member(aborted, "nx").replacing(), nullValue());
    }

    @Test
    void aReplacementIsRefusedLikeAnAddAndForAMemberThatIsNotNormal() throws Exception {
        ClusterMetadata metadata = cluster(4, 2);
        assertThat(refusal(metadata, new MetadataCommand.Replace("nq", joining("nx"))), containsString("no member nq to replace"));
        assertThat(refusal(metadata, new MetadataCommand.Replace("n1", joining("n2"))), containsString("is already a member"));
        ClusterMetadata leaving = metadata.apply(set("n3", MemberState.LEAVING));
        assertThat(refusal(leaving, new MetadataCommand.Replace("n3", joining("nx"))), containsString("only a normal member"));
        assertThat(refusal(leaving, new MetadataCommand.Replace("n1", joining("nx"))), containsString("in progress"));
        ClusterMetadata left = leaving.apply(set("n3", MemberState.LEFT));
        assertThat(refusal(left, new MetadataCommand.Replace("n3", joining("nx"))), containsString("is left; only a normal member"));
    }

    @Test
    void oneChangeAtATime() throws Exception {
        for (MemberState busy : List.of(MemberState.JOINING, MemberState.LEAVING)) {
            ClusterMetadata metadata = withNxIn(busy);
            assertThat(metadata.changeInProgress().map(Member::id), is(Optional.of("nx")));
            String why = "member nx is " + busy.label();
            assertThat(refusal(metadata, new MetadataCommand.AddMember(joining("ny"))), containsString(why));
            assertThat(refusal(metadata, new MetadataCommand.Replace("n0", joining("ny"))), containsString(why));
            assertThat(refusal(metadata, set("n0", MemberState.LEAVING)), containsString("change is in progress"));
            assertThat(refusal(metadata, new MetadataCommand.SetReplicationFactor(1)), containsString("change is in progress"));
        }
        assertThat(withNxIn(MemberState.NORMAL).changeInProgress(), is(Optional.empty()));
    }

    @Test
    void aDecommissionMayNotLeaveFewerNormalMembersThanTheReplicationFactor() throws Exception {
        ClusterMetadata metadata = cluster(3, 3);
        String message = refusal(metadata, set("n0", MemberState.LEAVING));
        assertThat(message, containsString("decommissioning n0 would leave 2 members for replication factor 3"));
        assertThat(message, containsString("ringkv meta set-replication-factor"));
        ClusterMetadata lowered = metadata.apply(new MetadataCommand.SetReplicationFactor(2));
        assertThat(member(lowered.apply(set("n0", MemberState.LEAVING)), "n0").state(), is(MemberState.LEAVING));
    }

    @Test
    void theReplicationFactorIsBoundByTheNormalMembers() throws Exception {
        ClusterMetadata metadata = cluster(4, 2).apply(set("n3", MemberState.LEAVING)).apply(set("n3", MemberState.LEFT));
        assertThat(metadata.normalMembers(), is(3));
        assertThat(metadata.apply(new MetadataCommand.SetReplicationFactor(3)).replicationFactor(), is(3));
        assertThat(refusal(metadata, new MetadataCommand.SetReplicationFactor(4)),
                containsString("between 1 and the number of members (3)"));
        assertThat(refusal(metadata, new MetadataCommand.SetReplicationFactor(0)), containsString("got 0"));
    }

    @Test
    void initialMembersAreNormalWithIndexesByUrlOrder() throws Exception {
        List<String> urls = List.of("http://10.0.0.9:7000", "http://10.0.0.10:7000", "http://10.0.0.1:7000");
        List<Member> initial = Member.initial(urls.stream().map(ClusterNode::parse).toList());
        // String order, not numeric: "10.0.0.10:" < "10.0.0.1:" (':' sorts after '0') < "10.0.0.9:".
        assertThat(initial.stream().map(Member::index).toList(), equalTo(List.of(2, 0, 1)));
        for (int i = 0; i < urls.size(); i++) {
            assertThat(urls.get(i), initial.get(i).index(), is(ClusterNodes.of(urls, urls.get(i)).indexOfSelf()));
        }
        ClusterMetadata metadata = ClusterMetadata.EMPTY.apply(new MetadataCommand.Initialize(initial, 2));
        assertThat(metadata.normalMembers(), is(3));
        assertThat(refusal(ClusterMetadata.EMPTY, new MetadataCommand.Initialize(List.of(joining("nx")), 1)),
                containsString("an initial member is normal"));
        Member twin = new Member("ny", "http://y:1", MemberState.NORMAL, 2, null);
        assertThat(refusal(ClusterMetadata.EMPTY, new MetadataCommand.Initialize(List.of(initial.getFirst(), twin), 1)),
                containsString("index 2 is held by two members"));
    }

    @Test
    void aFullListOfEntriesDropsARecordOfALeftMemberToAdmitAJoiner() throws Exception {
        List<Member> members = new ArrayList<>(cluster(3, 2).members());
        for (int i = 0; members.size() < ClusterMetadata.ENTRIES_MAX; i++) {
            members.add(new Member(String.format("old%03d", i), "http://old" + i + ":1", MemberState.LEFT, 0, null));
        }
        ClusterMetadata full = new ClusterMetadata(5, 2, members);
        ClusterMetadata joined = full.apply(new MetadataCommand.AddMember(joining("nx")));
        assertThat(joined.members().size(), is(ClusterMetadata.ENTRIES_MAX));
        assertThat(joined.member("old000"), is(Optional.empty()));
        assertThat(member(joined, "nx").index(), is(3));
        assertThat(MetadataCodec.decodeMetadata(MetadataCodec.encode(joined)), equalTo(joined));
    }

    /**
     * A change that names the state it moves from applies only from there: an abort of a join,
     * asked after the state was read as joining, must not finish a decommission the member began
     * meanwhile (the same target, left), nor end a join that finished (normal).
     */
    @Test
    void aMoveThatNamesItsFromStateAppliesOnlyFromThere() throws Exception {
        MetadataCommand abortJoin = new MetadataCommand.SetMemberState("nx", MemberState.LEFT, MemberState.JOINING);

        ClusterMetadata leaving = withNxIn(MemberState.LEAVING);
        assertThat(refusal(leaving, abortJoin), containsString("member nx is leaving, not joining"));
        assertThat("the unconditional move would have finished the decommission",
                member(leaving.apply(set("nx", MemberState.LEFT)), "nx").state(), is(MemberState.LEFT));
        assertThat(refusal(withNxIn(MemberState.NORMAL), abortJoin), containsString("is normal, not joining"));

        ClusterMetadata aborted = withNxIn(MemberState.JOINING).apply(abortJoin);
        assertThat(member(aborted, "nx").state(), is(MemberState.LEFT));
        assertThat(refusal(withNxIn(MemberState.JOINING), new MetadataCommand.SetMemberState("nx", MemberState.NORMAL,
                MemberState.LEAVING)), containsString("is joining, not leaving"));
    }
}
