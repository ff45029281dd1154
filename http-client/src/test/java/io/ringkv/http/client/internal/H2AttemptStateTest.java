package io.ringkv.http.client.internal;

import static io.ringkv.http.client.internal.H2AttemptState.COMPLETED;
import static io.ringkv.http.client.internal.H2AttemptState.DONE;
import static io.ringkv.http.client.internal.H2AttemptState.ENDED;
import static io.ringkv.http.client.internal.H2AttemptState.OPENING;
import static io.ringkv.http.client.internal.H2AttemptState.SENDING;
import static io.ringkv.http.client.internal.H2AttemptState.SENT;
import static io.ringkv.http.client.internal.H2AttemptState.Event.CANCEL;
import static io.ringkv.http.client.internal.H2AttemptState.Event.GONE;
import static io.ringkv.http.client.internal.H2AttemptState.Event.OPENED;
import static io.ringkv.http.client.internal.H2AttemptState.Event.OPENED_WHOLE;
import static io.ringkv.http.client.internal.H2AttemptState.Event.REQUEST_SENT;
import static io.ringkv.http.client.internal.H2AttemptState.Event.RESPONSE_ENDED;
import static io.ringkv.http.client.internal.H2AttemptState.Event.SETTLED;
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
 * resets the stream, whether it gives the slot back and whether it completes the response body, or
 * that the pair is refused.
 */
class H2AttemptStateTest {
    /** What a pair does; {@code null} next state = refused. */
    private record Outcome(H2AttemptState next, boolean resets, boolean releases, boolean completesBody) {
        static final Outcome REFUSED = new Outcome(null, false, false, false);
    }

    private static Outcome to(H2AttemptState next) {
        return new Outcome(next, false, false, false);
    }

    private static Outcome release(H2AttemptState next, boolean resets) {
        return new Outcome(next, resets, true, false);
    }

    /** The diagram in {@link H2AttemptState}'s javadoc, written out by hand. */
    private static final Map<H2AttemptState, Map<Event, Outcome>> TABLE = new EnumMap<>(H2AttemptState.class);

    static {
        row(OPENING, Map.of(OPENED, to(SENDING), OPENED_WHOLE, to(SENT), CANCEL, to(OPENING), SETTLED, to(OPENING),
                REQUEST_SENT, Outcome.REFUSED, RESPONSE_ENDED, Outcome.REFUSED, GONE, Outcome.REFUSED));
        row(SENDING, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, to(SENT),
                RESPONSE_ENDED, release(ENDED, true), CANCEL, release(DONE, true), GONE, release(DONE, false),
                SETTLED, to(SENDING)));
        row(SENT, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, Outcome.REFUSED,
                RESPONSE_ENDED, release(ENDED, false), CANCEL, release(DONE, true), GONE, release(DONE, false),
                SETTLED, to(SENT)));
        row(DONE, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, to(DONE),
                RESPONSE_ENDED, to(DONE), CANCEL, to(DONE), GONE, to(DONE), SETTLED, to(DONE)));
        row(ENDED, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, to(ENDED),
                RESPONSE_ENDED, Outcome.REFUSED, CANCEL, to(ENDED), GONE, to(ENDED),
                SETTLED, new Outcome(COMPLETED, false, false, true)));
        row(COMPLETED, Map.of(OPENED, Outcome.REFUSED, OPENED_WHOLE, Outcome.REFUSED, REQUEST_SENT, to(COMPLETED),
                RESPONSE_ENDED, Outcome.REFUSED, CANCEL, to(COMPLETED), GONE, to(COMPLETED), SETTLED, to(COMPLETED)));
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
                    assertThat(pair + " completes the body", state.completesBody(event), is(expected.completesBody()));
                    legal++;
                }
            }
        }
        assertThat(legal + refused, is(6 * 7));
        assertThat(refused, is(16));
    }

    @Test
    void onlyTheStepThatEndsAnOpenStreamGivesTheSlotBackAndOnlyAnOpenStreamIsReset() {
        for (H2AttemptState state : H2AttemptState.values()) {
            for (Event event : Event.values()) {
                Outcome expected = TABLE.get(state).get(event);
                if (expected.next() == null) {
                    continue;
                }
                boolean open = state == SENDING || state == SENT;
                boolean ends = expected.next() == DONE || expected.next() == ENDED;
                assertThat(state + " on " + event, state.releases(event), is(open && ends));
                if (state.resets(event)) {
                    assertThat(state + " on " + event, open, is(true));
                }
            }
        }
    }
}
