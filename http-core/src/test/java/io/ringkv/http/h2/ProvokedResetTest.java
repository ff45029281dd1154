package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * At the server, the RST_STREAMs a client makes us send count against the rapid-reset limit
 * together with the ones it sends ("MadeYouReset", CVE-2025-8671); time is passed in.
 */
class ProvokedResetTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private static final Http2Event CALM = new Http2Event.ConnectionFailed(ErrorCode.ENHANCE_YOUR_CALM, "rapid_reset");

    private final Http2Config config = Http2Config.defaults()
            .withLimits(new AbuseLimits(5, 3, 4096, 4, 4, 4, Duration.ofSeconds(1)));

    @Test
    void resetsProvokedByZeroWindowUpdatesPastTheLimitAreEnhanceYourCalm() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = new ArrayList<>();
        for (int id = 1; id <= 11; id += 2) {
            peer.sendRequest(id, false);
            events.addAll(peer.send(new WindowUpdateFrame(id, 0)));
        }
        assertThat(events, hasItem(CALM));
        assertThat(peer.sent(), hasItem(new GoAwayFrame(11, ErrorCode.ENHANCE_YOUR_CALM, "rapid_reset")));
    }

    @Test
    void provokedAndPeerResetsShareOneBudget() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = new ArrayList<>();
        for (int id = 1; id <= 11; id += 2) {
            peer.sendRequest(id, false);
            Frame reset = id % 4 == 1 ? new RstStreamFrame(id, ErrorCode.CANCEL) : new WindowUpdateFrame(id, 0);
            events.addAll(peer.send(reset));
        }
        assertThat(events, hasItem(CALM));
    }

    @Test
    void provokedResetsSpreadOverIntervalsAreAllowed() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = new ArrayList<>();
        for (int id = 1; id <= 41; id += 2) {
            peer.nowNanos += SECOND / 4;
            peer.sendRequest(id, false);
            events.addAll(peer.send(new WindowUpdateFrame(id, 0)));
        }
        assertThat(events, not(hasItem(CALM)));
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
    }
}
