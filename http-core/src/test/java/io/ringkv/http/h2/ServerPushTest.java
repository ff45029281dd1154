package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.http.hpack.HeaderField;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 9113 §6.6 and §8.4: PUSH_PROMISE as the client receives it and as the server sends it. */
class ServerPushTest {
    private static final List<HeaderField> REQUEST = ScriptedPeer.fields(":method", "GET", ":scheme", "http",
            ":path", "/", ":authority", "a");
    private final Http2Config pushing = Http2Config.defaults().withLocal(withPush(Http2Settings.localDefaults()));

    private static Http2Settings withPush(Http2Settings s) {
        return new Http2Settings(s.headerTableSize(), true, s.maxConcurrentStreams(), s.initialWindowSize(),
                s.maxFrameSize(), s.maxHeaderListBytes());
    }

    private static ByteBuffer promisedBlock(ScriptedPeer peer, String method, String path) {
        return peer.encoder.encode(ScriptedPeer.fields(":method", method, ":scheme", "http", ":path", path,
                ":authority", "a"));
    }

    @Test
    void promiseAndPushedResponseReachTheClient() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, pushing);
        int id = peer.connection.openStream(REQUEST, true);
        List<Http2Event> events = peer.send(new PushPromiseFrame(id, 2, promisedBlock(peer, "GET", "/style.css"),
                true, Frame.UNPADDED));
        assertThat(events, contains(new Http2Event.PushPromised(id, 2, ScriptedPeer.fields(":method", "GET",
                ":scheme", "http", ":path", "/style.css", ":authority", "a"))));
        assertThat(peer.connection.streamState(2), equalTo(StreamState.RESERVED_REMOTE));
        peer.sendHeaders(2, false, ":status", "200");
        List<Http2Event> data = peer.send(new DataFrame(2, ByteBuffer.wrap("css".getBytes()), true));
        assertThat(data, contains(new Http2Event.DataReceived(2, ByteBuffer.wrap("css".getBytes()), true)));
        assertThat(peer.connection.streamState(2), equalTo(StreamState.CLOSED));
        assertThat(peer.connection.streamState(id), equalTo(StreamState.HALF_CLOSED_LOCAL));
    }

    @Test
    void oddOrReusedPromisedIdIsAConnectionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, pushing);
        int id = peer.connection.openStream(REQUEST, true);
        List<Http2Event> events = peer.send(new PushPromiseFrame(id, 3, promisedBlock(peer, "GET", "/a"), true,
                Frame.UNPADDED));
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR, "bad_stream_id")));

        ScriptedPeer again = new ScriptedPeer(Role.CLIENT, pushing);
        int first = again.connection.openStream(REQUEST, true);
        again.send(new PushPromiseFrame(first, 4, promisedBlock(again, "GET", "/a"), true, Frame.UNPADDED));
        List<Http2Event> reused = again.send(new PushPromiseFrame(first, 2, promisedBlock(again, "GET", "/b"), true,
                Frame.UNPADDED));
        assertThat(reused, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR,
                "stream_id_not_increasing")));
    }

    @Test
    void promiseOnAStreamTheServerEndedIsAConnectionError() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, pushing);
        int id = peer.connection.openStream(REQUEST, true);
        peer.sendHeaders(id, true, ":status", "204");
        List<Http2Event> events = peer.send(new PushPromiseFrame(id, 2, promisedBlock(peer, "GET", "/late"), true,
                Frame.UNPADDED));
        assertThat(events, contains(new Http2Event.ConnectionFailed(ErrorCode.PROTOCOL_ERROR,
                "push_promise_on_bad_stream")));
    }

    @Test
    void promiseThatCrossedOurResetCancelsOnlyThePromisedStream() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, pushing);
        int id = peer.connection.openStream(REQUEST, true);
        peer.connection.resetStream(id, ErrorCode.CANCEL);
        peer.sent();
        List<Http2Event> events = peer.send(new PushPromiseFrame(id, 2, promisedBlock(peer, "GET", "/x"), true,
                Frame.UNPADDED));
        assertThat(events, contains(new Http2Event.StreamReset(2, ErrorCode.CANCEL, false,
                "push_promise_on_reset_stream")));
        assertThat(peer.sent(), contains(new RstStreamFrame(2, ErrorCode.CANCEL.code)));
        assertThat(peer.connection.state(), equalTo(ConnectionState.OPEN));
    }

    @Test
    void unsafeOrBodyCarryingPromisedRequestResetsThePromisedStream() {
        ScriptedPeer peer = new ScriptedPeer(Role.CLIENT, pushing);
        int id = peer.connection.openStream(REQUEST, true);
        List<Http2Event> post = peer.send(new PushPromiseFrame(id, 2, promisedBlock(peer, "POST", "/p"), true,
                Frame.UNPADDED));
        assertThat(post, contains(new Http2Event.StreamReset(2, ErrorCode.PROTOCOL_ERROR, false,
                "promised_request_not_safe_and_cacheable")));
        ByteBuffer withContent = peer.encoder.encode(ScriptedPeer.fields(":method", "GET", ":scheme", "http",
                ":path", "/q", ":authority", "a", "content-length", "3"));
        List<Http2Event> content = peer.send(new PushPromiseFrame(id, 4, withContent, true, Frame.UNPADDED));
        assertThat(content, contains(new Http2Event.StreamReset(4, ErrorCode.PROTOCOL_ERROR, false,
                "promised_request_with_content")));
        assertThat(peer.connection.streamState(id), equalTo(StreamState.HALF_CLOSED_LOCAL));
    }

    @Test
    void serverPushesToAClientThatAllowsIt() {
        Http2Connection client = new Http2Connection(Role.CLIENT, pushing);
        Http2Connection server = new Http2Connection(Role.SERVER, Http2Config.defaults());
        client.start();
        server.start();
        pump(client, server);
        pump(server, client);
        pump(client, server);
        int id = client.openStream(REQUEST, true);
        pump(client, server);
        List<HeaderField> promisedRequest = ScriptedPeer.fields(":method", "GET", ":scheme", "http",
                ":path", "/pushed", ":authority", "a");
        int promised = server.pushPromise(id, promisedRequest);
        server.sendHeaders(promised, ScriptedPeer.fields(":status", "200"), false);
        server.sendData(promised, ByteBuffer.wrap("p".getBytes()), true);
        server.sendHeaders(id, ScriptedPeer.fields(":status", "200"), true);
        List<Http2Event> atClient = pump(server, client);
        assertThat(promised, equalTo(2));
        assertThat(atClient, hasItem(new Http2Event.PushPromised(id, 2, promisedRequest)));
        assertThat(atClient, hasItem(new Http2Event.DataReceived(2, ByteBuffer.wrap("p".getBytes()), true)));
        assertThat(client.activeStreams() + server.activeStreams(), equalTo(0));
    }

    @Test
    void serverCannotPushWhenTheClientDisabledIt() {
        Http2Connection client = new Http2Connection(Role.CLIENT, Http2Config.defaults());
        Http2Connection server = new Http2Connection(Role.SERVER, Http2Config.defaults());
        client.start();
        server.start();
        pump(client, server);
        pump(server, client);
        int id = client.openStream(REQUEST, true);
        pump(client, server);
        assertThrows(IllegalStateException.class, () -> server.pushPromise(id, REQUEST));
    }

    private static List<Http2Event> pump(Http2Connection from, Http2Connection to) {
        List<Http2Event> events = new ArrayList<>();
        for (ByteBuffer buffer : from.drainOutput()) {
            events.addAll(to.receive(buffer, 0));
        }
        return events;
    }
}
