package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Whom a leader offers its leadership after a failed configuration change, so that a new leader
 * restarts the log appenders Ratis stopped: the voter it heard from last first. Before, the first
 * voter by id was the only one asked; when that was a dead voter the hand-over timed out and a
 * listener stayed at an old epoch for good.
 */
class VoterReconcilerTest {

    @Test
    void theVoterHeardFromLastComesFirstAndADeadOneLast() {
        Set<String> voters = Set.of("n1-leader", "n2-dead", "n3-live");
        Map<String, Long> lastHeard = Map.of("n2-dead", 40_000L, "n3-live", 120L, "n4-listener", 90L);
        assertThat(VoterReconciler.successors(voters, "n1-leader", lastHeard), is(List.of("n3-live", "n2-dead")));
    }

    @Test
    void votersTheLeaderHasNoFigureForComeLastThenById() {
        Set<String> voters = Set.of("n1", "n2", "n3", "n4", "n5");
        assertThat(VoterReconciler.successors(voters, "n3", Map.of("n5", 10L)), is(List.of("n5", "n1", "n2", "n4")));
        assertThat(VoterReconciler.successors(Set.of("n1"), "n1", Map.of()), is(List.of()));
    }
}
