package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** StreamState.next over every (state, event) pair, legal and illegal, from a table in resources. */
class StreamStateTableTest {
    private static final int STREAM = 7;

    static Stream<Arguments> table() throws IOException {
        return MalformedFrameTest.lines("/h2/stream-state-table.txt").stream().map(l -> l.split(" "))
                .map(w -> Arguments.of(StreamState.valueOf(w[0]), StreamEvent.valueOf(w[1]), w[2]));
    }

    @Test
    void tableCoversEveryStateEventPair() throws IOException {
        Set<String> pairs = new HashSet<>();
        for (String line : MalformedFrameTest.lines("/h2/stream-state-table.txt")) {
            String[] w = line.split(" ");
            pairs.add(w[0] + " " + w[1]);
        }
        assertThat(pairs.size(), equalTo(StreamState.values().length * StreamEvent.values().length));
    }

    @ParameterizedTest(name = "{0} + {1} -> {2}")
    @MethodSource("table")
    void transitionMatchesTable(StreamState state, StreamEvent event, String expected) throws Http2Error {
        if (expected.equals("illegal")) {
            assertThrows(IllegalStateException.class, () -> StreamState.next(state, event, STREAM));
        } else if (expected.startsWith("conn:")) {
            ConnectionError e = assertThrows(ConnectionError.class, () -> StreamState.next(state, event, STREAM));
            assertThat(e.code(), equalTo(ErrorCode.valueOf(expected.substring(5))));
        } else if (expected.startsWith("stream:")) {
            StreamError e = assertThrows(StreamError.class, () -> StreamState.next(state, event, STREAM));
            assertThat(e.code(), equalTo(ErrorCode.valueOf(expected.substring(7))));
            assertThat(e.streamId(), equalTo(STREAM));
        } else {
            assertThat(StreamState.next(state, event, STREAM), equalTo(StreamState.valueOf(expected)));
        }
    }

    @Test
    void canSendAndCanReceiveFollowHalfClosure() {
        List<StreamState> sending = Stream.of(StreamState.values()).filter(StreamState::canSend).toList();
        List<StreamState> receiving = Stream.of(StreamState.values()).filter(StreamState::canReceive).toList();
        assertThat(sending, equalTo(List.of(StreamState.OPEN, StreamState.HALF_CLOSED_REMOTE)));
        assertThat(receiving, equalTo(List.of(StreamState.OPEN, StreamState.HALF_CLOSED_LOCAL)));
        assertThat(new StreamError(1, ErrorCode.CANCEL, "x"), instanceOf(Http2Error.class));
    }
}
