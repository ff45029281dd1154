package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each abuse limit closes the connection with GOAWAY(ENHANCE_YOUR_CALM); time is passed in. */
class AbuseLimitsTest {
    private static final long SECOND = Duration.ofSeconds(1).toNanos();
    private static final Http2Event CALM_RAPID_RESET = failed("rapid_reset");

    private final Http2Config config = Http2Config.defaults()
            .withLimits(new AbuseLimits(5, 3, 4096, 4, 4, 4, Duration.ofSeconds(1)));

    private static Http2Event failed(String reason) {
        return new Http2Event.ConnectionFailed(ErrorCode.ENHANCE_YOUR_CALM, reason);
    }

    @Test
    void rapidResetBeyondLimitPerIntervalIsEnhanceYourCalm() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = new ArrayList<>();
        for (int id = 1; id <= 11; id += 2) {
            peer.sendRequest(id, false);
            events.addAll(peer.send(new RstStreamFrame(id, ErrorCode.CANCEL)));
        }
        assertThat(events, hasItem(CALM_RAPID_RESET));
        assertThat(peer.sent(), hasItem(new GoAwayFrame(11, ErrorCode.ENHANCE_YOUR_CALM, "rapid_reset")));
    }

    @Test
    void resetsSpreadOverIntervalsAreAllowed() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = new ArrayList<>();
        for (int id = 1; id <= 41; id += 2) {
            peer.nowNanos += SECOND / 4;
            peer.sendRequest(id, false);
            events.addAll(peer.send(new RstStreamFrame(id, ErrorCode.CANCEL)));
        }
        assertThat(events, not(hasItem(CALM_RAPID_RESET)));
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
    }

    @Test
    void continuationFramesBeyondLimitPerBlockAreEnhanceYourCalm() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Frame> frames = new ArrayList<>();
        frames.add(new HeadersFrame(1, ByteBuffer.allocate(0), true, false));
        for (int i = 0; i < 4; i++) {
            frames.add(new ContinuationFrame(1, ByteBuffer.allocate(0), false));
        }
        assertThat(peer.send(frames.toArray(Frame[]::new)), contains(failed("too_many_continuations")));
    }

    @Test
    void headerBlockBeyondByteLimitIsEnhanceYourCalm() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = peer.send(new HeadersFrame(1, ByteBuffer.allocate(3000), true, false),
                new ContinuationFrame(1, ByteBuffer.allocate(3000), false));
        assertThat(events, contains(failed("header_block_too_large")));
    }

    @Test
    void settingsFloodIsEnhanceYourCalm() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.addAll(peer.send(new SettingsFrame(false, List.of())));
        }
        assertThat(events, hasItem(failed("settings_flood")));
    }

    @Test
    void pingFloodIsEnhanceYourCalmButAnIntervalLaterPingsAreAnswered() {
        ScriptedPeer quiet = new ScriptedPeer(Role.SERVER, config);
        for (int i = 0; i < 8; i++) {
            quiet.nowNanos += SECOND / 2;
            quiet.send(new PingFrame(i, false));
        }
        assertThat(quiet.connection.state(), equalTo(ConnectionState.OPEN));
        ScriptedPeer flood = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.addAll(flood.send(new PingFrame(i, false)));
        }
        assertThat(events, contains(failed("ping_flood")));
    }

    @Test
    void emptyDataFloodIsEnhanceYourCalm() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, false);
        List<Http2Event> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.addAll(peer.send(new DataFrame(1, ByteBuffer.allocate(0), false)));
        }
        assertThat(events, hasItem(failed("empty_data_flood")));
    }
}
