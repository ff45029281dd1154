package io.ringkv.http.h2;

import static io.ringkv.http.h2.ConnectionState.AWAITING_SETTINGS;
import static io.ringkv.http.h2.ConnectionState.CLOSED;
import static io.ringkv.http.h2.ConnectionState.DRAINING;
import static io.ringkv.http.h2.ConnectionState.OPEN;
import static io.ringkv.http.h2.ConnectionState.Event.CONNECTION_ERROR;
import static io.ringkv.http.h2.ConnectionState.Event.GOAWAY_RECEIVED;
import static io.ringkv.http.h2.ConnectionState.Event.GOAWAY_SENT;
import static io.ringkv.http.h2.ConnectionState.Event.SETTINGS_RECEIVED;
import static io.ringkv.http.h2.ConnectionState.Event.TRANSPORT_CLOSED;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.h2.ConnectionState.Event;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ConnectionState}'s table, every (state, event) pair, legal and refused. */
class ConnectionStateTest {
    /** The diagram in {@link ConnectionState}'s javadoc, written out by hand; {@code null} = refused. */
    private static final Map<ConnectionState, Map<Event, ConnectionState>> TABLE = new EnumMap<>(ConnectionState.class);

    static {
        row(AWAITING_SETTINGS, OPEN, null, DRAINING, CLOSED, CLOSED);
        row(OPEN, OPEN, DRAINING, DRAINING, CLOSED, CLOSED);
        row(DRAINING, DRAINING, DRAINING, DRAINING, CLOSED, CLOSED);
        row(CLOSED, null, CLOSED, CLOSED, CLOSED, CLOSED);
    }

    /** One row, in the order SETTINGS_RECEIVED, GOAWAY_RECEIVED, GOAWAY_SENT, CONNECTION_ERROR, TRANSPORT_CLOSED. */
    private static void row(ConnectionState state, ConnectionState... nexts) {
        Event[] order = {SETTINGS_RECEIVED, GOAWAY_RECEIVED, GOAWAY_SENT, CONNECTION_ERROR, TRANSPORT_CLOSED};
        Map<Event, ConnectionState> row = new EnumMap<>(Event.class);
        for (int i = 0; i < order.length; i++) {
            row.put(order[i], nexts[i]);
        }
        TABLE.put(state, row);
    }

    @Test
    void theTableNamesEveryPair() {
        assertThat(TABLE.size(), is(ConnectionState.values().length));
        assertThat(Event.values().length, is(5));
    }

    @Test
    void everyPairDoesWhatTheTableSays() {
        int refused = 0;
        for (ConnectionState state : ConnectionState.values()) {
            for (Event event : Event.values()) {
                ConnectionState expected = TABLE.get(state).get(event);
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
        assertThat(refused, is(2));
    }

    @Test
    void aConnectionThatStoppedAcceptingStreamsNeverAcceptsAgain() {
        for (ConnectionState state : ConnectionState.values()) {
            if (state.acceptsNewStreams()) {
                continue;
            }
            for (Event event : Event.values()) {
                ConnectionState next = TABLE.get(state).get(event);
                if (next != null) {
                    assertThat(state + " on " + event, next.acceptsNewStreams(), is(false));
                }
            }
        }
    }

    @Test
    void aClosedConnectionIgnoresItsInputAndAGracefulGoAwayDoesNotReopenIt() {
        Http2Connection connection = new Http2Connection(Role.CLIENT, Http2Config.defaults());
        connection.start();
        connection.transportClosed();
        assertThat(connection.state(), is(CLOSED));
        connection.goAway(ErrorCode.NO_ERROR, "shutdown");
        assertThat(connection.state(), is(CLOSED));
        java.nio.ByteBuffer settings = new FrameGenerator().generate(new SettingsFrame(false, java.util.List.of()));
        assertThat(connection.receive(settings, 0).isEmpty(), is(true));
        assertThat(connection.state(), is(CLOSED));
    }
}
