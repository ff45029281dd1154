package io.ringkv.cluster.member;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The last step of a join: former owners asked to clean up until each starts, a bounded number of times. */
class FormerOwnerCleanupsTest {
    private static final ClusterNode A = ClusterNode.parse("http://127.0.0.1:1001");
    private static final ClusterNode B = ClusterNode.parse("http://127.0.0.1:1002");
    private static final ClusterNode C = ClusterNode.parse("http://127.0.0.1:1003");

    private final Map<ClusterNode, Integer> asked = new HashMap<>();
    private final List<Duration> pauses = new ArrayList<>();

    /**
     * The case that left keys behind: a member behind on the metadata answers 503 until it
     * catches up. Asked once, as before, it never ran the cleanup.
     */
    @Test
    void aMemberThatRefusesAtFirstIsAskedAgainUntilItStarts() throws Exception {
        List<ClusterNode> never = FormerOwnerCleanups.askAll(List.of(A, B), member -> {
            int attempt = asked.merge(member, 1, Integer::sum);
            if (member.equals(B) && attempt < 3) {
                throw new IOException("503 this node knows cluster metadata epoch 4; the request was sent at epoch 5");
            }
        }, pauses::add, () -> false);
        assertThat(never, is(List.of()));
        assertThat(asked, is(Map.of(A, 1, B, 3)));
        assertThat(pauses, is(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2))));
    }

    @Test
    void aMemberThatNeverStartsIsAskedABoundedNumberOfTimesAndReturned() throws Exception {
        List<ClusterNode> never = FormerOwnerCleanups.askAll(List.of(A, C), member -> {
            asked.merge(member, 1, Integer::sum);
            if (member.equals(C)) {
                throw new IOException("connection refused");
            }
        }, pauses::add, () -> false);
        assertThat(never, is(List.of(C)));
        assertThat(asked, is(Map.of(A, 1, C, FormerOwnerCleanups.ATTEMPTS)));
        assertThat(pauses, is(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
                Duration.ofSeconds(8), Duration.ofSeconds(16))));
    }

    @Test
    void aStoppedStepAsksNoMore() throws Exception {
        List<ClusterNode> never = FormerOwnerCleanups.askAll(List.of(C), member -> {
            asked.merge(member, 1, Integer::sum);
            throw new IOException("refused");
        }, pauses::add, () -> true);
        assertThat(never, is(List.of(C)));
        assertThat(asked, is(Map.of(C, 1)));
        assertThat(pauses, is(List.of()));
    }
}
