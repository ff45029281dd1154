package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The registry's counts of active streams, which it keeps as streams change state instead of
 * counting its map, must agree with a count of the map after any sequence of events.
 */
class StreamRegistryTest {

    @Test
    void activeCountsFollowEveryStateChangeOnBothSides() throws Http2Error {
        for (Role role : Role.values()) {
            StreamRegistry registry = new StreamRegistry(role);
            Random random = new Random(20261126L + role.ordinal());
            List<Http2Stream> opened = new ArrayList<>();
            int peerId = role == Role.CLIENT ? 2 : 1;
            for (int step = 0; step < 20_000; step++) {
                int choice = random.nextInt(10);
                if (choice == 0 || opened.isEmpty()) {
                    opened.add(registry.openLocal(65_535, 65_535, 0.5));
                } else if (choice == 1) {
                    opened.add(registry.openPeer(peerId, 65_535, 65_535, 0.5));
                    peerId += 2;
                } else {
                    Http2Stream stream = opened.get(random.nextInt(opened.size()));
                    StreamEvent event = StreamEvent.values()[random.nextInt(StreamEvent.values().length)];
                    try {
                        stream.apply(event);
                    } catch (IllegalStateException | Http2Error notAllowedInThisState) {
                        continue; // the state table refuses it; the stream keeps its state
                    }
                    registry.forgetIfClosed(stream);
                    if (stream.state() == StreamState.CLOSED) {
                        opened.remove(stream);
                    }
                }
                assertThat(role + " step " + step + ", ours", registry.activeInitiatedBy(true), is(counted(registry, role, true)));
                assertThat(role + " step " + step + ", the peer's", registry.activeInitiatedBy(false), is(counted(registry, role, false)));
            }
        }
    }

    @Test
    void aStreamCountsFromItsHeadersUntilItCloses() throws Http2Error {
        StreamRegistry registry = new StreamRegistry(Role.CLIENT);
        Http2Stream stream = registry.openLocal(65_535, 65_535, 0.5);
        assertThat("idle", registry.activeInitiatedBy(true), is(0));
        stream.apply(StreamEvent.SEND_HEADERS);
        assertThat("open", registry.activeInitiatedBy(true), is(1));
        stream.apply(StreamEvent.SEND_END_STREAM);
        assertThat("half closed (local)", registry.activeInitiatedBy(true), is(1));
        stream.apply(StreamEvent.RECV_END_STREAM);
        assertThat("closed", registry.activeInitiatedBy(true), is(0));
        assertThat("the peer opened none", registry.activeInitiatedBy(false), is(0));
    }

    private static int counted(StreamRegistry registry, Role role, boolean local) {
        int count = 0;
        for (Http2Stream s : registry.all()) {
            if (s.isActive() && role.initiates(s.id) == local) {
                count++;
            }
        }
        return count;
    }
}
