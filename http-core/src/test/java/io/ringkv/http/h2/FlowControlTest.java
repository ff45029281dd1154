package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.ringkv.http.hpack.HeaderField;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Send windows, batched receive credit, SETTINGS deltas and overflow (RFC 9113 §6.9). */
class FlowControlTest {
    private static final List<HeaderField> GET = ScriptedPeer.fields(":method", "POST", ":scheme", "http",
            ":path", "/", ":authority", "a");
    /** Server-side connection with 65,535-octet windows, so numbers stay readable. */
    private final Http2Config small = Http2Config.defaults()
            .withLocal(new Http2Settings(4096, false, 100, 65_535, 16_384, 65_536))
            .withConnectionWindow(65_535, 0.5);

    @Test
    void sendStopsAtZeroStreamWindowAndResumesOnWindowUpdate() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, Http2Config.defaults(),
                new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, 100));
        int id = peer.connection.openStream(GET, false);
        ByteBuffer body = ByteBuffer.allocate(250);
        assertThat(peer.connection.sendData(id, body, true), equalTo(100));
        peer.sent();
        assertThat(peer.connection.sendData(id, body, true), equalTo(0));
        assertThat(peer.sent(), empty());
        assertThat(peer.send(new WindowUpdateFrame(id, 200)), contains(new Http2Event.WindowOpened(id)));
        assertThat(peer.connection.sendData(id, body, true), equalTo(150));
        List<Frame> frames = peer.sent();
        assertThat(frames, contains(new DataFrame(id, ByteBuffer.allocate(150), true)));
        assertThat(peer.connection.streamState(id), equalTo(StreamState.HALF_CLOSED_LOCAL));
    }

    @Test
    void sendStopsAtZeroConnectionWindowAcrossStreams() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, Http2Config.defaults(),
                new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, 1 << 20));
        int first = peer.connection.openStream(GET, false);
        int second = peer.connection.openStream(GET, false);
        assertThat(peer.connection.sendData(first, ByteBuffer.allocate(60_000), false), equalTo(60_000));
        assertThat(peer.connection.sendData(second, ByteBuffer.allocate(60_000), false), equalTo(5_535));
        assertThat(peer.connection.sendableBytes(first), equalTo(0));
        assertThat(peer.send(new WindowUpdateFrame(0, 10_000)), contains(new Http2Event.WindowOpened(0)));
        assertThat(peer.connection.sendableBytes(second), equalTo(10_000));
    }

    @Test
    void dataLargerThanPeerMaxFrameSizeIsSplit() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, Http2Config.defaults(),
                new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, 1 << 20));
        int id = peer.connection.openStream(GET, false);
        peer.sent();
        peer.connection.sendData(id, ByteBuffer.allocate(40_000), true);
        List<Frame> frames = peer.sent();
        assertThat(frames.size(), equalTo(3));
        assertThat(((DataFrame) frames.get(2)).endStream(), equalTo(true));
        assertThat(((DataFrame) frames.get(0)).data().remaining(), equalTo(16_384));
    }

    @Test
    void receiveCreditIsSentInBatchesOfHalfAWindow() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small);
        peer.sendRequest(1, false);
        peer.sent();
        for (int i = 0; i < 3; i++) {
            peer.send(new DataFrame(1, ByteBuffer.allocate(10_000), false));
            peer.connection.consumed(1, 10_000);
            assertThat("after frame " + i, peer.sent(), empty());
        }
        peer.send(new DataFrame(1, ByteBuffer.allocate(10_000), false));
        peer.connection.consumed(1, 10_000);
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 40_000), new WindowUpdateFrame(1, 40_000)));
    }

    @Test
    void creditRatioIsConfigurable() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small.withConnectionWindow(65_535, 0.1));
        peer.sendRequest(1, false);
        peer.sent();
        peer.send(new DataFrame(1, ByteBuffer.allocate(7_000), false));
        peer.connection.consumed(1, 7_000);
        // 7,000 is above a tenth of both 65,535-octet windows (and below the default half).
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 7_000), new WindowUpdateFrame(1, 7_000)));
    }

    @Test
    void noStreamCreditAfterEndStreamOnlyConnectionCredit() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small);
        peer.sendRequest(1, false);
        peer.send(new DataFrame(1, ByteBuffer.allocate(16_000), false),
                new DataFrame(1, ByteBuffer.allocate(16_000), false),
                new DataFrame(1, ByteBuffer.allocate(8_000), true));
        peer.sent();
        peer.connection.consumed(1, 40_000);
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 40_000)));
    }

    @Test
    void paddingIsCreditedWithoutWaitingForTheApplication() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small.withConnectionWindow(65_535, 0.001));
        peer.sendRequest(1, false);
        peer.sent();
        List<Http2Event> events = peer.send(new DataFrame(1, ByteBuffer.allocate(10), false, 200));
        assertThat(events, contains(new Http2Event.DataReceived(1, ByteBuffer.allocate(10), false)));
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 201), new WindowUpdateFrame(1, 201)));
    }

    @Test
    void dataForClosedStreamIsStillCreditedToTheConnection() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small.withConnectionWindow(65_535, 0.01));
        peer.sendRequest(1, false);
        peer.send(new RstStreamFrame(1, ErrorCode.CANCEL));
        peer.sent();
        peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), false));
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000), new RstStreamFrame(1, ErrorCode.STREAM_CLOSED)));
    }

    @Test
    void dataForAStreamWeResetIsCreditedToTheConnectionAndOtherwiseIgnored() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small.withConnectionWindow(65_535, 0.01));
        peer.sendRequest(1, false);
        peer.connection.resetStream(1, ErrorCode.CANCEL);
        peer.sent();
        peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), false));
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000)));
    }

    @Test
    void rfc9113_6_9_2_initialWindowDeltaAppliesToEveryOpenStream() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, Http2Config.defaults());
        int a = peer.connection.openStream(GET, false);
        int b = peer.connection.openStream(GET, false);
        peer.connection.sendData(a, ByteBuffer.allocate(30_000), false);
        peer.send(new SettingsFrame(false, List.of(new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, 20_000))));
        assertThat(peer.connection.sendableBytes(a), equalTo(0));
        assertThat(peer.connection.sendableBytes(b), equalTo(20_000));
        List<Http2Event> events = peer.send(new SettingsFrame(false,
                List.of(new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, 40_001))));
        assertThat(events, hasItem(new Http2Event.WindowOpened(a)));
        assertThat(peer.connection.sendableBytes(a), equalTo(10_001));
    }

    @Test
    void rfc9113_6_9_1_streamWindowOverflowIsStreamFlowControlError() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, Http2Config.defaults());
        int id = peer.connection.openStream(GET, false);
        peer.sent();
        List<Http2Event> events = peer.send(new WindowUpdateFrame(id, Integer.MAX_VALUE));
        assertThat(events, contains(new Http2Event.StreamReset(id, ErrorCode.FLOW_CONTROL_ERROR, false, "window_overflow")));
        assertThat(peer.sent(), contains(new RstStreamFrame(id, ErrorCode.FLOW_CONTROL_ERROR)));
    }

    @Test
    void rfc9113_6_9_1_connectionWindowOverflowIsConnectionFlowControlError() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, Http2Config.defaults());
        List<Http2Event> events = peer.send(new WindowUpdateFrame(0, Integer.MAX_VALUE));
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.FLOW_CONTROL_ERROR, "window_overflow")));
    }

    @Test
    void rfc9113_6_9_2_settingsThatOverflowAStreamWindowAreConnectionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, Http2Config.defaults());
        int id = peer.connection.openStream(GET, false);
        peer.send(new WindowUpdateFrame(id, Integer.MAX_VALUE - 65_535));
        List<Http2Event> events = peer.send(new SettingsFrame(false,
                List.of(new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, 65_536))));
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.FLOW_CONTROL_ERROR,
                "window_overflow_on_settings")));
    }

    @Test
    void dataBeyondTheReceiveWindowIsFlowControlError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small.withConnectionWindow(1 << 20, 0.5));
        peer.sendRequest(1, false);
        peer.sent();
        for (int i = 0; i < 4; i++) {
            peer.send(new DataFrame(1, ByteBuffer.allocate(16_000), false));
        }
        List<Http2Event> events = peer.send(new DataFrame(1, ByteBuffer.allocate(2_000), false));
        assertThat(events, contains(new Http2Event.StreamReset(1, ErrorCode.FLOW_CONTROL_ERROR, false, "window_exceeded")));
    }

    @Test
    void largeConfiguredConnectionWindowIsAnnouncedAfterSettings() {
        Http2Connection client = new Http2Connection(Role.CLIENT, Http2Config.defaults());
        client.start();
        ByteBuffer wire = FrameRoundTripTest.concat(client.drainOutput());
        List<Frame> frames = FrameRoundTripTest.parseAllQuietly(FrameParser.forServer(), wire);
        assertThat(frames.get(1), equalTo(new WindowUpdateFrame(0, Http2Config.DEFAULT_CONNECTION_WINDOW - 65_535)));
        SettingsFrame settings = (SettingsFrame) frames.get(0);
        assertThat(settings.settings(), hasItem(new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, 1 << 20)));
        assertThat(settings.settings(), hasItem(new SettingsFrame.Setting(SettingId.ENABLE_PUSH, 0)));
    }
}
