package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicationFactorTest {

    private static final List<Member> MEMBERS = List.of(new Member("na", "http://a:1", MemberState.NORMAL, 0, null),
            new Member("nb", "http://b:1", MemberState.NORMAL, 1, null), new Member("nc", "http://c:1", MemberState.NORMAL, 2, null),
            new Member("nd", "http://d:1", MemberState.NORMAL, 3, null), new Member("ne", "http://e:1", MemberState.NORMAL, 4, null));

    @Test
    void defaultsToThreeOrEveryNodeOfASmallerCluster() {
        assertThat(ReplicationFactor.defaultFor(1), is(1));
        assertThat(ReplicationFactor.defaultFor(2), is(2));
        assertThat(ReplicationFactor.defaultFor(3), is(3));
        assertThat(ReplicationFactor.defaultFor(5), is(3));
    }

    @Test
    void refusesAFactorOutsideOneToTheClusterSizeWithAMessage() {
        assertThat(assertThrows(IllegalArgumentException.class, () -> new ReplicationFactor(0, 3)).getMessage(),
                containsString("at least 1"));
        assertThat(assertThrows(IllegalArgumentException.class, () -> new ReplicationFactor(4, 3)).getMessage(),
                containsString("exceeds the 3 node(s)"));
    }

    @Test
    void keepsTheConfiguredValueUntilTheMetadataIsInitialisedThenFollowsIt() {
        ReplicationFactor rf = new ReplicationFactor(3, 5);
        rf.follow(ClusterMetadata.EMPTY);
        assertThat(rf.current(), is(3));
        rf.follow(new ClusterMetadata(1, 5, MEMBERS));
        assertThat(rf.current(), is(5));
        assertThat(rf.fromMetadata(), is(true));
        rf.follow(new ClusterMetadata(2, 2, MEMBERS));
        assertThat(rf.current(), is(2));
    }

    /** Metadata naming more copies than this node's list has nodes cannot be followed: the node keeps its factor. */
    @Test
    void ignoresAFactorBeyondItsNodeList() {
        ReplicationFactor rf = new ReplicationFactor(3, 3);
        rf.follow(new ClusterMetadata(1, 5, MEMBERS));
        assertThat(rf.current(), is(3));
    }
}
