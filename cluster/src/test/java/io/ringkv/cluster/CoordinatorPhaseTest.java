package io.ringkv.cluster;

import static io.ringkv.cluster.CoordinatorPhase.DONE;
import static io.ringkv.cluster.CoordinatorPhase.PLANNED;
import static io.ringkv.cluster.CoordinatorPhase.QUORUM_IMPOSSIBLE;
import static io.ringkv.cluster.CoordinatorPhase.QUORUM_MET;
import static io.ringkv.cluster.CoordinatorPhase.REPAIRING;
import static io.ringkv.cluster.CoordinatorPhase.STARTED;
import static io.ringkv.cluster.CoordinatorPhase.TIMED_OUT;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.CoordinatorPhase.Event;
import io.ringkv.cluster.CoordinatorPhase.Tally;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class CoordinatorPhaseTest {

    /** An undecided tally: 1 of 2 needed successes, no failure yet, 3 asked. */
    private static final Tally UNDECIDED = new Tally(2, 3, 1, 0);

    /**
     * Every (phase, event) pair with a tally that leaves PLANNED undecided. The expected phase,
     * or null where the event is illegal. Rows are phases in declaration order; columns are
     * events in declaration order: REPLICAS_CHOSEN, REPLY_SUCCEEDED, REPLY_FAILED,
     * DEADLINE_PASSED, STALE_REPLICAS_SEEN, REPAIRS_SETTLED, ALL_SETTLED.
     */
    private static final CoordinatorPhase[][] TABLE = {
        /* STARTED           */ {PLANNED, null, null, null, null, null, null},
        /* PLANNED           */ {null, PLANNED, PLANNED, TIMED_OUT, null, null, null},
        /* QUORUM_MET        */ {null, QUORUM_MET, QUORUM_MET, QUORUM_MET, REPAIRING, null, DONE},
        /* QUORUM_IMPOSSIBLE */ {null, QUORUM_IMPOSSIBLE, QUORUM_IMPOSSIBLE, QUORUM_IMPOSSIBLE, null, null, DONE},
        /* TIMED_OUT         */ {null, TIMED_OUT, TIMED_OUT, TIMED_OUT, null, null, DONE},
        /* REPAIRING         */ {null, null, null, REPAIRING, null, DONE, null},
        /* DONE              */ {null, null, null, DONE, null, null, null},
    };

    static Stream<Arguments> everyPhaseAndEvent() {
        List<Arguments> pairs = new ArrayList<>();
        for (CoordinatorPhase phase : CoordinatorPhase.values()) {
            for (Event event : Event.values()) {
                pairs.add(Arguments.of(phase, event, TABLE[phase.ordinal()][event.ordinal()]));
            }
        }
        return pairs.stream();
    }

    @Test
    void tableCoversEveryPhaseAndEvent() {
        assertThat(TABLE.length, is(CoordinatorPhase.values().length));
        for (CoordinatorPhase[] row : TABLE) {
            assertThat(row.length, is(Event.values().length));
        }
    }

    @ParameterizedTest(name = "{0} + {1} -> {2}")
    @MethodSource("everyPhaseAndEvent")
    void transitionsAsTheDiagramSays(CoordinatorPhase phase, Event event, CoordinatorPhase expected) {
        if (expected == null) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> CoordinatorPhase.next(phase, event, UNDECIDED));
            assertThat(e.getMessage(), containsString("coordinator_illegal_transition"));
        } else {
            assertThat(CoordinatorPhase.next(phase, event, UNDECIDED), is(expected));
        }
    }

    @ParameterizedTest(name = "ack={0} from={1} successes={2} failures={3} -> {4}")
    @CsvSource({
        "1, 1, 1, 0, QUORUM_MET",
        "1, 1, 0, 1, QUORUM_IMPOSSIBLE",
        "2, 3, 1, 0, PLANNED",
        "2, 3, 2, 0, QUORUM_MET",
        "2, 3, 0, 1, PLANNED",
        "2, 3, 1, 1, PLANNED",
        "2, 3, 2, 1, QUORUM_MET",
        "2, 3, 0, 2, QUORUM_IMPOSSIBLE",
        "1, 3, 0, 2, PLANNED",
        "1, 3, 0, 3, QUORUM_IMPOSSIBLE",
        "3, 3, 2, 0, PLANNED",
        "3, 3, 2, 1, QUORUM_IMPOSSIBLE",
        "3, 5, 3, 2, QUORUM_MET",
        "3, 5, 2, 2, PLANNED",
        "3, 5, 2, 3, QUORUM_IMPOSSIBLE",
    })
    void aReplyDecidesAsSoonAsTheTallyAllows(int ack, int from, int successes, int failures, CoordinatorPhase expected) {
        Tally tally = new Tally(ack, from, successes, failures);
        Event event = failures > 0 ? Event.REPLY_FAILED : Event.REPLY_SUCCEEDED;
        assertThat(CoordinatorPhase.next(PLANNED, event, tally), is(expected));
    }

    /**
     * A write during a change counts its owners and its future owners apart, each with its own ack
     * (a grow at 2/3: owners a, b, c; future owners a, b, d): met when both are, impossible when
     * either is. Two owners that stay (a, b) meet both; a, c and d do too; a and c alone meet only
     * the owners.
     */
    @ParameterizedTest(name = "owners {0}/{1} +{2} -{3}, future owners {4}/{5} +{6} -{7} -> {8}")
    @CsvSource({
        "2, 3, 2, 0,   2, 3, 2, 0,   QUORUM_MET",        // a and b: both groups
        "2, 3, 2, 0,   2, 3, 1, 0,   PLANNED",           // a and c: d still to answer
        "2, 3, 2, 1,   2, 3, 2, 1,   QUORUM_MET",        // a, c and d, b failed
        "2, 3, 2, 0,   2, 3, 1, 2,   QUORUM_IMPOSSIBLE", // a and c, b and d failed: the future owners cannot
        "2, 3, 1, 2,   2, 3, 2, 0,   QUORUM_IMPOSSIBLE", // the owners cannot
        "2, 3, 1, 1,   2, 3, 1, 1,   PLANNED",
        "1, 2, 1, 0,   2, 3, 1, 0,   PLANNED",           // a replacement: one survivor is not enough
        "1, 2, 1, 0,   2, 3, 2, 0,   QUORUM_MET",        // a survivor and the replacement are
        "0, 0, 0, 0,   1, 1, 0, 1,   QUORUM_IMPOSSIBLE", // 1/1, its only owner replaced, the replacement failed
    })
    void aWriteDuringAChangeIsDecidedByBothGroups(int ownersAck, int owners, int ownersSucceeded, int ownersFailed,
                                                  int futureAck, int future, int futureSucceeded, int futureFailed,
                                                  CoordinatorPhase expected) {
        Tally ownersTally = new Tally(ownersAck, owners, ownersSucceeded, ownersFailed);
        Tally futureTally = new Tally(futureAck, future, futureSucceeded, futureFailed);
        Event event = ownersFailed + futureFailed > 0 ? Event.REPLY_FAILED : Event.REPLY_SUCCEEDED;
        assertThat(CoordinatorPhase.next(PLANNED, event, ownersTally, futureTally), is(expected));
    }

    @Test
    void onlyPhasesAfterPlannedAreDecided() {
        assertThat(STARTED.isDecided(), is(false));
        assertThat(PLANNED.isDecided(), is(false));
        assertThat(QUORUM_MET.isDecided() && QUORUM_IMPOSSIBLE.isDecided() && TIMED_OUT.isDecided()
                && REPAIRING.isDecided() && DONE.isDecided(), is(true));
    }
}
