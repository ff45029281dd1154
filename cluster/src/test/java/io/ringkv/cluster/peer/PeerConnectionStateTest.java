package io.ringkv.cluster.peer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.peer.PeerConnectionState.Event;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every transition of {@link PeerConnectionState}, as a table. */
class PeerConnectionStateTest {

    @ParameterizedTest(name = "{0} --{1}--> {2}")
    @CsvSource({
            "CONNECTING, SETTINGS, OPEN",
            "CONNECTING, RETIRE,   DRAINING",
            "CONNECTING, CLOSE,    CLOSED",
            "OPEN,       SETTINGS, OPEN",
            "OPEN,       RETIRE,   DRAINING",
            "OPEN,       CLOSE,    CLOSED",
            "DRAINING,   SETTINGS, DRAINING",
            "DRAINING,   RETIRE,   DRAINING",
            "DRAINING,   CLOSE,    CLOSED",
            "CLOSED,     SETTINGS, CLOSED",
            "CLOSED,     RETIRE,   CLOSED",
            "CLOSED,     CLOSE,    CLOSED"})
    void transitions(PeerConnectionState from, Event event, PeerConnectionState to) {
        assertThat(from.next(event), is(to));
    }

    @ParameterizedTest
    @CsvSource({"CONNECTING, true", "OPEN, true", "DRAINING, false", "CLOSED, false"})
    void onlyAConnectionConnectingOrOpenTakesRequests(PeerConnectionState state, boolean takes) {
        assertThat(state.takesRequests(), is(takes));
    }
}
