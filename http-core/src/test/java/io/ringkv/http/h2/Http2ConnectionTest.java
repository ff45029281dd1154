package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.LogText;
import io.ringkv.http.hpack.HeaderField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Connection-level behaviour: stream ids, limits, header validation, errors mapped to frames. */
class Http2ConnectionTest {
    private final Http2Config config = Http2Config.defaults();

    @Test
    void clientAndServerExchangeRequestBodyResponseAndTrailers() {
        Http2Connection client = new Http2Connection(Role.CLIENT, config);
        Http2Connection server = new Http2Connection(Role.SERVER, config);
        client.start();
        server.start();
        pump(client, server);
        pump(server, client);
        int id = client.openStream(ScriptedPeer.fields(":method", "PUT", ":scheme", "http", ":path", "/v0/entity?id=k",
                ":authority", "n1"), false);
        client.sendData(id, ByteBuffer.wrap("value".getBytes()), true);
        List<Http2Event> atServer = pump(client, server);
        assertThat(atServer.get(0), instanceOf(Http2Event.HeadersReceived.class));
        assertThat(atServer.get(1), equalTo(new Http2Event.DataReceived(id, ByteBuffer.wrap("value".getBytes()), true)));
        server.sendHeaders(id, ScriptedPeer.fields(":status", "201"), false);
        server.sendData(id, ByteBuffer.wrap("ok".getBytes()), false);
        server.sendHeaders(id, ScriptedPeer.fields("x-checksum", "abc"), true);
        List<Http2Event> atClient = pump(server, client);
        assertThat(atClient, hasItem(new Http2Event.HeadersReceived(id, ScriptedPeer.fields("x-checksum", "abc"), true, true)));
        assertThat(client.streamState(id), equalTo(StreamState.CLOSED));
        assertThat(server.streamState(id), equalTo(StreamState.CLOSED));
        assertThat(client.activeStreams() + server.activeStreams(), equalTo(0));
    }

    @Test
    void dataPayloadsGoOutAsSlicesOfTheSendersBufferBehindTheirOwnHeaders() {
        Http2Connection client = new Http2Connection(Role.CLIENT, Http2Config.defaults());
        Http2Connection server = new Http2Connection(Role.SERVER, Http2Config.defaults());
        client.start();
        server.start();
        pump(client, server);
        pump(server, client);
        int id = client.openStream(ScriptedPeer.fields(":method", "PUT", ":scheme", "http", ":path", "/x",
                ":authority", "n1"), false);
        client.drainOutput();
        byte[] body = "payload".getBytes();
        ByteBuffer data = ByteBuffer.wrap(body);
        client.sendData(id, data, true);
        List<ByteBuffer> out = client.drainOutput();
        assertThat(out.size(), equalTo(2));
        assertThat(out.get(0).remaining(), equalTo(9));
        assertThat(out.get(1).array() == body, equalTo(true));
        assertThat(out.get(1).remaining(), equalTo(body.length));
    }

    private static List<Http2Event> pump(Http2Connection from, Http2Connection to) {
        List<Http2Event> events = new ArrayList<>();
        for (ByteBuffer buffer : from.drainOutput()) {
            events.addAll(to.receive(buffer, 0));
        }
        return events;
    }

    @Test
    void rfc9113_3_4_firstFrameMustBeSettings() {
        Http2Connection server = new Http2Connection(Role.SERVER, config);
        server.receive(Preface.bytes(), 0);
        List<Http2Event> events = server.receive(new FrameGenerator().generate(new PingFrame(1, false)), 0);
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "settings_expected")));
    }

    @Test
    void rfc9113_5_1_1_streamIdsMustIncrease() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(5, true);
        List<Http2Event> events = peer.sendRequest(3, true);
        assertThat(events, hasItem(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "stream_id_not_increasing")));
        assertThat(peer.sent(), hasItem(new GoAwayFrame(5, ErrorCode.PROTOCOL_ERROR, "stream_id_not_increasing")));
    }

    @Test
    void headersAfterThePeersEndStreamAreStreamClosedWhateverTheBlockHolds() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, true);
        List<Http2Event> events = peer.sendRequest(1, true);
        assertThat(events, contains(new Http2Event.StreamReset(1, ErrorCode.STREAM_CLOSED, false,
                "headers_after_end_stream")));
    }

    @Test
    void headersOnAClosedStreamAreAConnectionErrorAtTheServer() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, true);
        peer.connection.sendHeaders(1, ScriptedPeer.fields(":status", "204"), true);
        List<Http2Event> events = peer.sendHeaders(1, true, "x-trailer", "v");
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.STREAM_CLOSED,
                "headers_on_closed_stream")));
    }

    @Test
    void headersOnStreamWeResetAreIgnored() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, false);
        peer.connection.resetStream(1, ErrorCode.CANCEL);
        peer.sent();
        assertThat(peer.sendHeaders(1, true, "x-trailer", "v"), equalTo(List.of()));
        assertThat(peer.sent(), equalTo(List.of()));
    }

    @Test
    void rfc9113_5_1_1_evenStreamFromClientIsProtocolError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        assertThat(peer.sendRequest(2, true), hasItem(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "bad_stream_id")));
    }

    @Test
    void rfc9113_5_1_dataOnIdleStreamIsConnectionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        assertThat(peer.send(new DataFrame(1, ByteBuffer.allocate(1), false)),
                hasItem(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "data_on_idle_stream")));
    }

    @Test
    void rfc9113_5_1_2_streamsBeyondOurLimitAreRefusedAndConnectionLives() {
        Http2Config two = config.withLocal(new Http2Settings(4096, false, 2, 65_535, 16_384, 65_536));
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, two);
        peer.sendRequest(1, false);
        peer.sendRequest(3, false);
        peer.sendRequest(5, false);
        assertThat(peer.sent(), contains(new RstStreamFrame(5, ErrorCode.REFUSED_STREAM)));
        peer.send(new DataFrame(1, ByteBuffer.allocate(0), true));
        assertThat(peer.sendRequest(7, true).get(0), instanceOf(Http2Event.StreamReset.class));
        peer.connection.sendHeaders(1, ScriptedPeer.fields(":status", "200"), true);
        List<Http2Event> events = peer.sendRequest(9, true);
        assertThat(events.get(0), instanceOf(Http2Event.HeadersReceived.class));
    }

    @Test
    void clientHonoursPeerMaxConcurrentStreams() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config,
                new SettingsFrame.Setting(SettingId.MAX_CONCURRENT_STREAMS, 1));
        List<HeaderField> request = ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a");
        assertThat(peer.connection.openStream(request, true), equalTo(1));
        assertThat(peer.connection.canOpenStream(), equalTo(false));
        assertThrows(IllegalStateException.class, () -> peer.connection.openStream(request, true));
        peer.sendHeaders(1, true, ":status", "204");
        assertThat(peer.connection.openStream(request, true), equalTo(3));
    }

    @Test
    void malformedRequestsAreResetWithProtocolError() {
        String[][] malformed = {
            {"X-Upper", "v"}, {"connection", "close"}, {"te", "gzip"}, {"transfer-encoding", "chunked"},
            {"x-bad", " leading-space"}, {":path", "/again"}, {"keep-alive", "5"}, {"upgrade", "h2c"},
        };
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        int id = 1;
        for (String[] field : malformed) {
            List<Http2Event> events = peer.sendRequest(id, true, field[0], field[1]);
            assertThat(field[0], events.get(0), instanceOf(Http2Event.StreamReset.class));
            assertThat(field[0], peer.sent(), contains(new RstStreamFrame(id, ErrorCode.PROTOCOL_ERROR)));
            id += 2;
        }
        assertThat(peer.sendRequest(id, true, "te", "trailers").get(0), instanceOf(Http2Event.HeadersReceived.class));
    }

    /**
     * RFC 9113 §8.2.1 holds for pseudo-header fields too: a value with NUL, CR or LF, or with
     * whitespace at either end, is malformed. :method must be a token (RFC 9110 §9.1), :scheme a
     * URI scheme (RFC 3986 §3.1), :path and :authority visible ASCII, as a request-target is in
     * HTTP/1.1 (RFC 9112 §3.2). Each costs only its stream: the next request on the connection
     * is taken.
     */
    @Test
    void rfc9113_8_2_1_pseudoHeaderValuesWithControlsOrBadSyntaxAreMalformed() {
        String[][] malformed = {
            {":path", "/v0/entity?id=a\r\nX: y"}, {":path", "/v0/entity?id=a\nb"}, {":path", "/v0/entity?id=a\u0000"},
            {":path", "/a b"}, {":path", " /a"}, {":path", "/a\u001b[31m"}, {":path", "/caf\u00e9"},
            {":method", "GET\r\nX: y"}, {":method", "G ET"}, {":method", "GET\u0000"}, {":method", ""},
            {":authority", "node\r\nX: y"}, {":authority", "no de"}, {":authority", "node\u0000"},
            {":scheme", "http\r\n"}, {":scheme", "ht tp"}, {":scheme", "1http"},
        };
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        int id = 1;
        for (String[] bad : malformed) {
            List<String> request = new ArrayList<>(List.of(":method", "GET", ":scheme", "http", ":path", "/v0/entity",
                    ":authority", "node"));
            request.set(request.indexOf(bad[0]) + 1, bad[1]);
            List<Http2Event> events = peer.sendHeaders(id, true, request.toArray(String[]::new));
            String what = bad[0] + "=" + LogText.escape(bad[1]);
            assertThat(what, events.get(0), instanceOf(Http2Event.StreamReset.class));
            assertThat(what, peer.sent(), contains(new RstStreamFrame(id, ErrorCode.PROTOCOL_ERROR)));
            id += 2;
        }
        assertThat(peer.sendHeaders(id, true, ":method", "OPTIONS", ":scheme", "https", ":path", "*",
                ":authority", "[::1]:8080").get(0), instanceOf(Http2Event.HeadersReceived.class));
    }

    /** Regular field values: control characters other than HTAB are refused, as HTTP/1.1 refuses them. */
    @Test
    void regularFieldValuesWithControlCharactersAreMalformed() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        String[] values = {"a\u001bb", "a\u007fb", "a\u0000b", "a\rb"};
        int id = 1;
        for (String value : values) {
            String what = LogText.escape(value);
            assertThat(what, peer.sendRequest(id, true, "x-field", value).get(0), instanceOf(Http2Event.StreamReset.class));
            assertThat(what, peer.sent(), contains(new RstStreamFrame(id, ErrorCode.PROTOCOL_ERROR)));
            id += 2;
        }
        assertThat(peer.sendRequest(id, true, "x-field", "a\tb \u00e9").get(0), instanceOf(Http2Event.HeadersReceived.class));
    }

    @Test
    void requestWithoutPathOrWithResponsePseudoHeaderIsMalformed() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendHeaders(1, true, ":method", "GET", ":scheme", "http", ":authority", "a");
        peer.sendHeaders(3, true, ":method", "GET", ":scheme", "http", ":path", "/", ":status", "200");
        peer.sendHeaders(5, true, "accept", "*/*", ":method", "GET", ":scheme", "http", ":path", "/");
        assertThat(peer.sent(), contains(new RstStreamFrame(1, ErrorCode.PROTOCOL_ERROR),
                new RstStreamFrame(3, ErrorCode.PROTOCOL_ERROR), new RstStreamFrame(5, ErrorCode.PROTOCOL_ERROR)));
    }

    @Test
    void rfc9113_8_1_1_bodyLongerOrShorterThanContentLengthIsMalformed() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, false, "content-length", "3");
        assertThat(peer.send(new DataFrame(1, ByteBuffer.allocate(4), false)), contains(
                new Http2Event.StreamReset(1, ErrorCode.PROTOCOL_ERROR, false, "content_length_exceeded")));
        peer.sendRequest(3, false, "content-length", "3");
        peer.send(new DataFrame(3, ByteBuffer.allocate(2), false));
        assertThat(peer.send(new DataFrame(3, ByteBuffer.allocate(0), true)), contains(
                new Http2Event.StreamReset(3, ErrorCode.PROTOCOL_ERROR, false, "content_length_mismatch")));
        peer.sendRequest(5, false, "content-length", "3");
        assertThat(peer.send(new DataFrame(5, ByteBuffer.allocate(3), true)),
                contains(new Http2Event.DataReceived(5, ByteBuffer.allocate(3), true)));
        assertThat(peer.sendRequest(7, true, "content-length", "x1").get(0), instanceOf(Http2Event.StreamReset.class));
    }

    @Test
    void responseToHeadDeclaresLengthWithoutBody() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config);
        int id = peer.connection.openStream(ScriptedPeer.fields(":method", "HEAD", ":scheme", "http", ":path", "/",
                ":authority", "a"), true);
        List<Http2Event> events = peer.sendHeaders(id, true, ":status", "200", "content-length", "1000");
        assertThat(events.get(0), instanceOf(Http2Event.HeadersReceived.class));
    }

    @Test
    void trailersMustEndTheStream() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.sendRequest(1, false);
        List<Http2Event> events = peer.sendHeaders(1, false, "x-trailer", "v");
        assertThat(events, contains(new Http2Event.StreamReset(1, ErrorCode.PROTOCOL_ERROR, false,
                "trailers_without_end_stream")));
    }

    @Test
    void informationalResponsePrecedesFinalResponse() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config);
        int id = peer.connection.openStream(ScriptedPeer.fields(":method", "POST", ":scheme", "http", ":path", "/",
                ":authority", "a", "expect", "100-continue"), false);
        assertThat(peer.sendHeaders(id, false, ":status", "100").get(0), instanceOf(Http2Event.HeadersReceived.class));
        List<Http2Event> events = peer.sendHeaders(id, true, ":status", "200");
        assertThat(events, contains(new Http2Event.HeadersReceived(id, ScriptedPeer.fields(":status", "200"), true, false)));
    }

    @Test
    void rfc9113_6_10_continuationOnOtherStreamIsConnectionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        ByteBuffer block = peer.encoder.encode(ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/"));
        List<Http2Event> events = peer.send(new HeadersFrame(1, block, true, false),
                new ContinuationFrame(3, ByteBuffer.allocate(0), true));
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "continuation_expected")));
    }

    @Test
    void headerBlockSplitOverContinuationsIsReassembled() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        ByteBuffer block = peer.encoder.encode(ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/",
                "x-long", "y".repeat(100)));
        List<Http2Event> events = peer.send(new HeadersFrame(1, block.slice(0, 5), true, false),
                new ContinuationFrame(1, block.slice(5, 50), false),
                new ContinuationFrame(1, block.slice(55, block.remaining() - 55), true));
        Http2Event.HeadersReceived headers = (Http2Event.HeadersReceived) events.get(0);
        assertThat(headers.fields().get(3), equalTo(new HeaderField("x-long", "y".repeat(100))));
    }

    @Test
    void hpackDecodingErrorIsCompressionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        List<Http2Event> events = peer.send(new HeadersFrame(1, Hex.buffer("be"), true, true));
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.COMPRESSION_ERROR, "index_out_of_range")));
    }

    @Test
    void tooLargeHeaderListCostsOnlyTheStream() {
        Http2Config small = config.withLocal(new Http2Settings(4096, false, 100, 65_535, 16_384, 200));
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, small);
        List<Http2Event> events = peer.sendRequest(1, true, "x-big", "z".repeat(300));
        assertThat(events, contains(new Http2Event.StreamReset(1, ErrorCode.PROTOCOL_ERROR, false, "header_list_too_large")));
        assertThat(peer.sendRequest(3, true).get(0), instanceOf(Http2Event.HeadersReceived.class));
    }

    @Test
    void pingIsAnsweredAndPushIsRefused() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config);
        peer.send(new PingFrame(42, false));
        assertThat(peer.sent(), contains(new PingFrame(42, true)));
        peer.connection.openStream(ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/",
                ":authority", "a"), true);
        List<Http2Event> events = peer.send(new PushPromiseFrame(1, 2, ByteBuffer.allocate(0), true, Frame.UNPADDED));
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "push_not_allowed")));
    }

    @Test
    void goAwayRefusesOurStreamsAboveLastStreamId() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, config);
        List<HeaderField> request = ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "a");
        peer.connection.openStream(request, true);
        peer.connection.openStream(request, true);
        List<Http2Event> events = peer.send(new GoAwayFrame(1, ErrorCode.NO_ERROR, "bye"));
        assertThat(events, contains(new Http2Event.GoAwayReceived(1, ErrorCode.NO_ERROR, "bye"),
                new Http2Event.StreamReset(3, ErrorCode.REFUSED_STREAM, true, "goaway")));
        assertThat(peer.connection.canOpenStream(), equalTo(false));
        assertThat(peer.connection.streamState(1), equalTo(StreamState.HALF_CLOSED_LOCAL));
    }

    @Test
    void inputAfterConnectionErrorIsIgnored() {
        ScriptedPeer peer = new ScriptedPeer(Role.SERVER, config);
        peer.send(new WindowUpdateFrame(0, 0x7fffffff));
        assertThat(peer.connection.state(), equalTo(ConnectionState.CLOSED));
        assertThat(peer.sendRequest(1, true), equalTo(List.of()));
    }
}
