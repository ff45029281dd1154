package io.ringkv.http.client.internal;

import static io.ringkv.http.client.internal.H2AttemptState.DONE;
import static io.ringkv.http.client.internal.H2AttemptState.OPENING;
import static io.ringkv.http.client.internal.H2AttemptState.SENDING;
import static io.ringkv.http.client.internal.H2AttemptState.SENT;
import static io.ringkv.http.client.internal.H2AttemptState.Event.CANCEL;
import static io.ringkv.http.client.internal.H2AttemptState.Event.GONE;
import static io.ringkv.http.client.internal.H2AttemptState.Event.OPENED;
import static io.ringkv.http.client.internal.H2AttemptState.Event.OPENED_WHOLE;
import static io.ringkv.http.client.internal.H2AttemptState.Event.REQUEST_SENT;
import static io.ringkv.http.client.internal.H2AttemptState.Event.RESPONSE_ENDED;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.internal.H2AttemptState.Event;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link H2AttemptState}'s table, every (state, event) pair: the next state, whether the step
 * resets the stream and whether it gives the slot back, or that the pair is refused.
 */
class H2AttemptStateTest {
    /** What a pair does; {@code null} next state = refused. */
    private record Outcome(H2AttemptState next, boolean resets, boolean releases) {
        static final Outcome REFUSED = new Outcome(null, false, false);
    }

    private static Outcome to(H2AttemptState next) {
        return new Outcome(next, false, false);
    }

    private static Outcome release(boolean resets) {
        return new Outcome(DONE, resets, true);
    }

    /** The diagram in {@link H2AttemptState}'s javadoc, written out by hand. */
    private static final Map<H2AttemptState, Map<Event, Outcome>> TABLE = new EnumMap<>(H2AttemptState.class);

    static {
        row(OPENING, Map.of(OPENED, to(SENDING), OPENED_WHOLE, to(SENT), CANCEL, to(OPENING),
                REQUEST_SENT, Outcome.REFUSED, RESPONSE_ENDED, Outcome.REFUSED, GONE, Outcome.REFUSED));
        row(SENDING, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, to(SENT),
                RESPONSE_ENDED, release(true), CANCEL, release(true), GONE, release(false)));
        row(SENT, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, Outcome.REFUSED,
                RESPONSE_ENDED, release(false), CANCEL, release(true), GONE, release(false)));
        row(DONE, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, to(DONE),
                RESPONSE_ENDED, to(DONE), CANCEL, to(DONE), GONE, to(DONE)));
    }

    private static void row(H2AttemptState state, Map<Event, Outcome> outcomes) {
        TABLE.put(state, new EnumMap<>(outcomes));
    }

    @Test
    void theTableNamesEveryPair() {
        assertThat(TABLE.size(), is(H2AttemptState.values().length));
        TABLE.values().forEach(row -> assertThat(row.size(), is(Event.values().length)));
    }

    @Test
    void everyPairDoesWhatTheTableSays() {
        int legal = 0;
        int refused = 0;
        for (H2AttemptState state : H2AttemptState.values()) {
            for (Event event : Event.values()) {
                Outcome expected = TABLE.get(state).get(event);
                String pair = state + " on " + event;
                if (expected.next() == null) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, () -> state.next(event), pair);
                    assertThat(e.getMessage(), containsString("from " + state + " on " + event));
                    refused++;
                } else {
                    assertThat(pair, state.next(event), is(expected.next()));
                    assertThat(pair + " resets", state.resets(event), is(expected.resets()));
                    assertThat(pair + " releases", state.releases(event), is(expected.releases()));
                    legal++;
                }
            }
        }
        assertThat(legal + refused, is(4 * 6));
        assertThat(refused, is(10));
    }

    @Test
    void onlyTheStepIntoDoneGivesTheSlotBackAndOnlyAnOpenStreamIsReset() {
        for (H2AttemptState state : H2AttemptState.values()) {
            for (Event event : Event.values()) {
                Outcome expected = TABLE.get(state).get(event);
                if (expected.next() == null) {
                    continue;
                }
                assertThat(state + " on " + event, state.releases(event), is(state != DONE && expected.next() == DONE));
                if (state.resets(event)) {
                    assertThat(state + " on " + event, state.streamOpened() && state != DONE, is(true));
                }
            }
        }
    }
}
