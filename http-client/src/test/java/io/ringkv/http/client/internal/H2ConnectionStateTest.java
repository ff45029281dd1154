package io.ringkv.http.client.internal;

import static io.ringkv.http.client.internal.H2ConnectionState.ACCEPTING;
import static io.ringkv.http.client.internal.H2ConnectionState.CLOSED;
import static io.ringkv.http.client.internal.H2ConnectionState.CONNECTING;
import static io.ringkv.http.client.internal.H2ConnectionState.DRAINING;
import static io.ringkv.http.client.internal.H2ConnectionState.Event.GOAWAY_RECEIVED;
import static io.ringkv.http.client.internal.H2ConnectionState.Event.HEADERS_DROPPED;
import static io.ringkv.http.client.internal.H2ConnectionState.Event.OPENED;
import static io.ringkv.http.client.internal.H2ConnectionState.Event.PING_UNANSWERED;
import static io.ringkv.http.client.internal.H2ConnectionState.Event.PROTOCOL_FAILED;
import static io.ringkv.http.client.internal.H2ConnectionState.Event.SHUTDOWN;
import static io.ringkv.http.client.internal.H2ConnectionState.Event.SOCKET_CLOSED;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.client.internal.H2ConnectionState.Event;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link H2ConnectionState}'s table, every (state, event) pair, legal and refused. */
class H2ConnectionStateTest {
    /** The diagram in {@link H2ConnectionState}'s javadoc, written out by hand; {@code null} = refused. */
    private static final Map<H2ConnectionState, Map<Event, H2ConnectionState>> TABLE = new EnumMap<>(H2ConnectionState.class);

    static {
        row(CONNECTING, OPENED, ACCEPTING, GOAWAY_RECEIVED, null, PING_UNANSWERED, null, PROTOCOL_FAILED, null,
                HEADERS_DROPPED, null, SHUTDOWN, DRAINING, SOCKET_CLOSED, CLOSED);
        row(ACCEPTING, OPENED, null, GOAWAY_RECEIVED, DRAINING, PING_UNANSWERED, DRAINING, PROTOCOL_FAILED, DRAINING,
                HEADERS_DROPPED, DRAINING, SHUTDOWN, DRAINING, SOCKET_CLOSED, CLOSED);
        row(DRAINING, OPENED, DRAINING, GOAWAY_RECEIVED, DRAINING, PING_UNANSWERED, DRAINING, PROTOCOL_FAILED, DRAINING,
                HEADERS_DROPPED, DRAINING, SHUTDOWN, DRAINING, SOCKET_CLOSED, CLOSED);
        row(CLOSED, OPENED, null, GOAWAY_RECEIVED, CLOSED, PING_UNANSWERED, CLOSED, PROTOCOL_FAILED, CLOSED,
                HEADERS_DROPPED, CLOSED, SHUTDOWN, CLOSED, SOCKET_CLOSED, CLOSED);
    }

    private static void row(H2ConnectionState state, Object... pairs) {
        Map<Event, H2ConnectionState> row = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            row.put((Event) pairs[i], (H2ConnectionState) pairs[i + 1]);
        }
        TABLE.put(state, row);
    }

    @Test
    void theTableNamesEveryPair() {
        assertThat(TABLE.size(), is(H2ConnectionState.values().length));
        TABLE.values().forEach(row -> assertThat(row.size(), is(Event.values().length)));
    }

    @Test
    void everyPairDoesWhatTheTableSays() {
        int refused = 0;
        for (H2ConnectionState state : H2ConnectionState.values()) {
            for (Event event : Event.values()) {
                H2ConnectionState expected = TABLE.get(state).get(event);
                String pair = state + " on " + event;
                if (expected == null) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, () -> state.next(event), pair);
                    assertThat(e.getMessage(), containsString("from " + state + " on " + event));
                    refused++;
                } else {
                    assertThat(pair, state.next(event), is(expected));
                }
            }
        }
        assertThat(refused, is(6));
    }

    @Test
    void aConnectionThatStoppedAcceptingNeverAcceptsAgain() {
        for (H2ConnectionState state : H2ConnectionState.values()) {
            assertThat(state.toString(), state.acceptsStreams(), is(state == CONNECTING || state == ACCEPTING));
            if (!state.acceptsStreams()) {
                for (Event event : Event.values()) {
                    if (TABLE.get(state).get(event) != null) {
                        assertThat(state + " on " + event, state.next(event).acceptsStreams(), is(false));
                    }
                }
            }
        }
    }
}
