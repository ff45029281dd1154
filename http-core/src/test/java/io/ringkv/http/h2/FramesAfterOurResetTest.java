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

/**
 * RFC 9113 §5.1 ("closed"): frames the peer sent before it saw our RST_STREAM are ignored, DATA
 * among them still credited to the connection window (§6.9), header blocks still decoded so that
 * the HPACK context stays in step; frames on streams closed any other way remain errors.
 */
class FramesAfterOurResetTest {
    /** A 65,535-octet connection window credited back at 1% (655 octets), so each test's credit shows at once. */
    private final Http2Config config = Http2Config.defaults().withConnectionWindow(65_535, 0.01);

    @Test
    void dataOnAStreamWeResetIsIgnoredAndCreditedToTheConnection() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, false);
        peer.connection.resetStream(1, ErrorCode.CANCEL);
        assertThat(peer.sent(), contains(new RstStreamFrame(1, ErrorCode.CANCEL)));

        List<Http2Event> events = peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), false));

        assertThat(events, empty());
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000)));
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
    }

    @Test
    void theConnectionWindowDoesNotLeakShutAcrossManyResetStreams() {
        // Default credit ratio: half the 65,535-octet window. Without credit for the ignored DATA,
        // the fifth 16,000-octet frame would exceed the connection window (FLOW_CONTROL_ERROR).
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, Http2Config.defaults().withConnectionWindow(65_535, 0.5));
        long credited = 0;
        int streams = 8;
        for (int i = 0; i < streams; i++) {
            int id = 1 + 2 * i;
            peer.sendRequest(id, false);
            peer.connection.resetStream(id, ErrorCode.CANCEL);
            assertThat(peer.send(new DataFrame(id, ByteBuffer.allocate(16_000), false)), empty());
            for (Frame frame : peer.sent()) {
                if (frame instanceof WindowUpdateFrame update && update.streamId() == 0) {
                    credited += update.increment();
                }
            }
        }
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
        // Credit goes in batches of at least 32,767: every third frame, 2 x 48,000 of the 128,000.
        assertThat(credited, equalTo(96_000L));
    }

    @Test
    void headersOnAStreamWeResetAreDecodedThenDropped() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        // Hand-made blocks, so that the dynamic table holds exactly what this test puts there.
        peer.send(new HeadersFrame(1, Hex.buffer("83 86 84"), false, true)); // POST http /
        peer.connection.resetStream(1, ErrorCode.CANCEL);
        peer.sent();

        // Trailers on stream 1, crossing our reset: "x-custom: abc", literal with incremental
        // indexing (RFC 7541 §6.2.1), so it becomes dynamic table entry 62.
        List<Http2Event> dropped = peer.send(new HeadersFrame(1,
                Hex.buffer("40 08 782d637573746f6d 03 616263"), true, true));
        assertThat(dropped, empty());
        assertThat(peer.sent(), empty());

        assertTheDroppedBlockWasDecoded(peer);
    }

    @Test
    void headerBlockWithContinuationOnAStreamWeResetIsDecodedThenDropped() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.send(new HeadersFrame(1, Hex.buffer("83 86 84"), false, true));
        peer.connection.resetStream(1, ErrorCode.CANCEL);
        peer.sent();

        ByteBuffer block = Hex.buffer("40 08 782d637573746f6d 03 616263");
        List<Http2Event> dropped = peer.send(new HeadersFrame(1, block.slice(0, 4), true, false),
                new ContinuationFrame(1, block.slice(4, block.remaining() - 4), true));
        assertThat(dropped, empty());
        assertThat(peer.sent(), empty());

        assertTheDroppedBlockWasDecoded(peer);
    }

    /** A new request that refers to entry 62 (0xbe) decodes only if the dropped block was decoded. */
    private static void assertTheDroppedBlockWasDecoded(ScriptedPeer peer) {
        List<Http2Event> events = peer.send(new HeadersFrame(3, Hex.buffer("82 86 84 be"), true, true));
        assertThat(events, contains(new Http2Event.HeadersReceived(3, ScriptedPeer.fields(":method", "GET",
                ":scheme", "http", ":path", "/", "x-custom", "abc"), true, false)));
    }

    @Test
    void theBodyOfAMalformedRequestIsIgnoredAfterOurReset() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> reset = peer.sendRequest(1, false, "connection", "close");
        assertThat(reset, contains(new Http2Event.StreamReset(1, ErrorCode.PROTOCOL_ERROR, false,
                "connection_specific_header")));
        assertThat(peer.sent(), contains(new RstStreamFrame(1, ErrorCode.PROTOCOL_ERROR)));

        assertThat(peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), true)), empty());
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000)));
        assertThat(peer.connection.streamState(1), equalTo(StreamState.CLOSED));
        assertThat(peer.connection.activeStreams(), equalTo(0));
    }

    @Test
    void theBodyOfARefusedStreamIsIgnored() {
        Http2Config one = config.withLocal(new Http2Settings(4096, false, 1, 65_535, 16_384, 65_536));
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, one);
        peer.sendRequest(1, false);
        peer.sendRequest(3, false);
        assertThat(peer.sent(), contains(new RstStreamFrame(3, ErrorCode.REFUSED_STREAM)));

        assertThat(peer.send(new DataFrame(3, ByteBuffer.allocate(1_000), true)), empty());
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000)));
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
    }

    @Test
    void aHeaderListTooLargeStillOpensTheStreamSoItsBodyIsIgnored() {
        Http2Config small = config.withLocal(new Http2Settings(4096, false, 100, 65_535, 16_384, 200));
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small);
        List<Http2Event> reset = peer.sendRequest(1, false, "x-big", "z".repeat(300));
        assertThat(reset, contains(new Http2Event.StreamReset(1, ErrorCode.PROTOCOL_ERROR, false,
                "header_list_too_large")));
        peer.sent();

        // Before the stream counted as opened, this was DATA on an idle stream: GOAWAY.
        assertThat(peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), true)), empty());
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000)));
        assertThat(peer.connection.streamState(1), equalTo(StreamState.CLOSED));
        List<Http2Event> next = peer.sendRequest(3, true);
        assertThat(next.get(0) instanceof Http2Event.HeadersReceived, equalTo(true));
    }

    @Test
    void dataAndTrailersOnAResponseTheClientResetAreIgnored() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config);
        int id = peer.connection.openStream(ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/",
                ":authority", "a"), true);
        peer.sendHeaders(id, false, ":status", "200");
        peer.connection.resetStream(id, ErrorCode.CANCEL);
        peer.sent();

        assertThat(peer.send(new DataFrame(id, ByteBuffer.allocate(1_000), false)), empty());
        assertThat(peer.sendHeaders(id, true, "x-checksum", "abc"), empty());
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000)));
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
    }

    @Test
    void aLateResponseOnAClientStreamNoLongerRememberedCostsThatStreamOnly() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config);
        List<HeaderField> get = ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/",
                ":authority", "a");
        int first = peer.connection.openStream(get, true);
        peer.connection.resetStream(first, ErrorCode.CANCEL);
        // Enough later resets that the first drops out of the memory of our resets.
        for (int i = 0; i < StreamRegistry.RESET_BY_US_MAX; i++) {
            peer.connection.resetStream(peer.connection.openStream(get, true), ErrorCode.CANCEL);
        }
        int live = peer.connection.openStream(get, true);
        peer.sent();

        // The server's answer to the first request, crossing our RST_STREAM long ago. Its block
        // adds "x-custom: abc" to the dynamic table (entry 62), so it must still be decoded.
        List<Http2Event> events = peer.send(new HeadersFrame(first,
                Hex.buffer("88 40 08 782d637573746f6d 03 616263"), false, true));

        assertThat(events, contains(new Http2Event.StreamReset(first, ErrorCode.STREAM_CLOSED, false,
                "headers_on_closed_stream")));
        assertThat(peer.sent(), contains(new RstStreamFrame(first, ErrorCode.STREAM_CLOSED)));
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
        // The stream still open gets its response, which refers to entry 62.
        assertThat(peer.send(new HeadersFrame(live, Hex.buffer("88 be"), true, true)), contains(
                new Http2Event.HeadersReceived(live, ScriptedPeer.fields(":status", "200", "x-custom", "abc"),
                        true, false)));
    }

    @Test
    void headersOnAStreamIdTheServerNeverOpenedAreStillAConnectionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config);
        peer.connection.openStream(ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/",
                ":authority", "a"), true);
        peer.sent();

        List<Http2Event> events = peer.send(new HeadersFrame(2, Hex.buffer("88"), true, true));

        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "server_opened_stream")));
    }

    @Test
    void dataOnAStreamClosedByBothEndStreamsIsStillAStreamError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, true);
        peer.connection.sendHeaders(1, ScriptedPeer.fields(":status", "204"), true);
        peer.sent();
        assertThat(peer.connection.streamState(1), equalTo(StreamState.CLOSED));

        List<Http2Event> events = peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), false));

        assertThat(events, contains(new Http2Event.StreamReset(1, ErrorCode.STREAM_CLOSED, false,
                "data_on_closed_stream")));
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000), new RstStreamFrame(1, ErrorCode.STREAM_CLOSED)));
    }

    @Test
    void dataOnAStreamThePeerResetIsStillAStreamError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, false);
        peer.send(new RstStreamFrame(1, ErrorCode.CANCEL));
        peer.sent();

        List<Http2Event> events = peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), false));

        assertThat(events, contains(new Http2Event.StreamReset(1, ErrorCode.STREAM_CLOSED, false,
                "data_on_closed_stream")));
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000), new RstStreamFrame(1, ErrorCode.STREAM_CLOSED)));
    }

    @Test
    void dataOnAStreamNeverOpenedIsStillAConnectionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, false);
        peer.connection.resetStream(1, ErrorCode.CANCEL);
        peer.sent();

        List<Http2Event> events = peer.send(new DataFrame(3, ByteBuffer.allocate(10), false));

        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "data_on_idle_stream")));
        assertThat(peer.sent(), hasItem(new GoAwayFrame(1, ErrorCode.PROTOCOL_ERROR, "data_on_idle_stream")));
    }

    @Test
    void onlyTheMostRecentResetsAreRemembered() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        int id = 1;
        for (int i = 0; i <= StreamRegistry.RESET_BY_US_MAX; i++, id += 2) {
            peer.sendRequest(id, false);
            peer.connection.resetStream(id, ErrorCode.CANCEL);
        }
        peer.sent();
        int newest = id - 2;

        // The newest reset is still ignored ...
        assertThat(peer.send(new DataFrame(newest, ByteBuffer.allocate(1_000), false)), empty());
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000)));
        // ... the oldest has dropped out: treated as any closed stream, and still credited.
        assertThat(peer.send(new DataFrame(1, ByteBuffer.allocate(1_000), false)), contains(
                new Http2Event.StreamReset(1, ErrorCode.STREAM_CLOSED, false, "data_on_closed_stream")));
        assertThat(peer.sent(), contains(new WindowUpdateFrame(0, 1_000), new RstStreamFrame(1, ErrorCode.STREAM_CLOSED)));
    }
}
