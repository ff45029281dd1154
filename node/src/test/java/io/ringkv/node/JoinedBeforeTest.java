package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a node that joined keeps to start again without asking, and when it asks after all. */
class JoinedBeforeTest {
    private static final ClusterNode SELF = ClusterNode.parse("http://127.0.0.1:8083");
    private static final ClusterNode OTHER = ClusterNode.parse("http://127.0.0.1:8080");
    private static final String FINGERPRINT = "0123456789abcdef";

    @TempDir
    Path dir;

    @Test
    void aMemberThatJoinedStartsFromItsFingerprintAndLastMetadata() throws Exception {
        JoinedBefore.record(dir, FINGERPRINT);
        for (MemberState state : List.of(MemberState.JOINING, MemberState.NORMAL, MemberState.LEAVING)) {
            ClusterMetadata metadata = metadata(member(SELF, state));
            JoinRequest.Joined joined = JoinedBefore.read(dir, SELF, metadata).orElseThrow();
            assertThat(state.label(), joined.fingerprint(), is(FINGERPRINT));
            assertThat(joined.metadata(), is(metadata));
            assertThat(joined.self(), is(member(SELF, state)));
            assertThat("read from the directory", joined.stored(), is(true));
        }
    }

    /** A new node, one whose metadata was never stored, one that left: each asks to join. */
    @Test
    void aNodeAsksWhenItHasNotJoinedOrLeft() throws Exception {
        assertThat("no file", JoinedBefore.read(dir, SELF, metadata(member(SELF, MemberState.NORMAL))), is(Optional.empty()));
        JoinedBefore.record(dir, FINGERPRINT);
        assertThat("no metadata stored", JoinedBefore.read(dir, SELF, null), is(Optional.empty()));
        assertThat("left", JoinedBefore.read(dir, SELF, metadata(member(SELF, MemberState.LEFT))), is(Optional.empty()));
        assertThat("not a member", JoinedBefore.read(dir, SELF, metadata()), is(Optional.empty()));
    }

    @Test
    void aDamagedFileStopsTheStartWithWhatToDo() throws Exception {
        for (String content : List.of("", "0123456789ABCDEF\n", "0123456789abcdef0\n", "not a fingerprint\n")) {
            Files.writeString(dir.resolve(JoinedBefore.NAME), content, StandardCharsets.UTF_8);
            NodeStartException refused = assertThrows(NodeStartException.class,
                    () -> JoinedBefore.read(dir, SELF, metadata(member(SELF, MemberState.NORMAL))));
            assertThat(content, refused.getMessage(), containsString("remove it to ask the cluster named by --join again"));
        }
        assertThrows(NodeStartException.class, () -> JoinedBefore.record(dir, "../../etc"));
    }

    private static ClusterMetadata metadata(Member... self) {
        List<Member> members = new java.util.ArrayList<>(List.of(member(OTHER, MemberState.NORMAL)));
        members.addAll(List.of(self));
        return new ClusterMetadata(7, 1, members);
    }

    private static Member member(ClusterNode node, MemberState state) {
        return new Member(Member.idOf(node), node.id(), state, node.equals(SELF) ? 1 : 0, null);
    }
}
