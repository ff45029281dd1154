package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RFC 7540 §3.2: HTTP/2 by {@code Upgrade: h2c}; the upgrade request continues as stream 1. */
class UpgradeStreamTest {
    private final Http2Config config = Http2Config.defaults();

    @Test
    void theResponseToTheUpgradeRequestArrivesOnStream1AndNewStreamsContinueAt3() {
        Http2Connection client = new Http2Connection(Role.CLIENT, config);
        Http2Connection server = new Http2Connection(Role.SERVER, config);
        client.start();
        assertThat(client.openUpgradeStream(false), equalTo(1));
        server.start();
        assertThat(server.openUpgradeStream(false), equalTo(1));
        assertThat(client.streamState(1), equalTo(StreamState.HALF_CLOSED_LOCAL));
        assertThat(server.streamState(1), equalTo(StreamState.HALF_CLOSED_REMOTE));
        assertThat(client.activeStreams(), equalTo(1));

        pump(client, server);
        assertThat(pump(server, client), contains(new Http2Event.SettingsReceived(client.peerSettings())));
        server.sendHeaders(1, ScriptedPeer.fields(":status", "200", "content-length", "2"), false);
        server.sendData(1, ByteBuffer.wrap("ok".getBytes()), true);
        List<Http2Event> atClient = pump(server, client);
        assertThat(atClient, contains(
                new Http2Event.HeadersReceived(1, ScriptedPeer.fields(":status", "200", "content-length", "2"), false, false),
                new Http2Event.DataReceived(1, ByteBuffer.wrap("ok".getBytes()), true)));
        assertThat(client.streamState(1), equalTo(StreamState.CLOSED));
        assertThat(server.streamState(1), equalTo(StreamState.CLOSED));

        int next = client.openStream(ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/",
                ":authority", "n1"), true);
        assertThat(next, equalTo(3));
        assertThat(pump(client, server).get(0), equalTo(
                new Http2Event.HeadersReceived(3, ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/",
                        ":authority", "n1"), true, false)));
    }

    @Test
    void aHeadUpgradeRequestExpectsNoBodyDespiteContentLength() {
        Http2Connection client = new Http2Connection(Role.CLIENT, config);
        Http2Connection server = new Http2Connection(Role.SERVER, config);
        client.start();
        client.openUpgradeStream(true);
        server.start();
        server.openUpgradeStream(true);
        pump(client, server);
        pump(server, client);
        server.sendHeaders(1, ScriptedPeer.fields(":status", "200", "content-length", "500"), true);
        List<Http2Event> atClient = pump(server, client);
        assertThat(atClient, contains(
                new Http2Event.HeadersReceived(1, ScriptedPeer.fields(":status", "200", "content-length", "500"), true, false)));
        assertThat(client.streamState(1), equalTo(StreamState.CLOSED));
    }

    @Test
    void theUpgradeStreamMustBeTheFirst() {
        Http2Connection client = new Http2Connection(Role.CLIENT, config);
        client.start();
        client.openStream(ScriptedPeer.fields(":method", "GET", ":scheme", "http", ":path", "/", ":authority", "n1"), true);
        assertThrows(IllegalStateException.class, () -> client.openUpgradeStream(false));
        Http2Connection twice = new Http2Connection(Role.CLIENT, config);
        twice.openUpgradeStream(false);
        assertThrows(IllegalStateException.class, () -> twice.openUpgradeStream(false));
    }

    @Test
    void http2SettingsFieldIsTheSettingsPayloadInBase64UrlWithoutPadding() {
        Http2Settings local = new Http2Settings(4096, false, 100, 1 << 20, 16_384, 64 * 1024);
        String value = UpgradeSettings.fieldValue(local);
        assertThat(value, not(containsString("=")));
        assertThat(value, not(containsString("+")));
        assertThat(value, not(containsString("/")));
        byte[] payload = Base64.getUrlDecoder().decode(value);
        ByteBuffer frame = new FrameGenerator().generate(new SettingsFrame(false, local.differencesFromDefaults()));
        byte[] expected = new byte[frame.remaining() - FrameHeader.BYTES];
        frame.position(FrameHeader.BYTES).get(expected);
        assertThat(payload, equalTo(expected));
        // ENABLE_PUSH=0, MAX_CONCURRENT_STREAMS=100, INITIAL_WINDOW_SIZE=1 MiB, MAX_HEADER_LIST_SIZE=64 KiB
        assertThat(payload.length, equalTo(4 * 6));
        ByteBuffer read = ByteBuffer.wrap(payload);
        List<Long> pairs = new ArrayList<>();
        while (read.hasRemaining()) {
            pairs.add((long) read.getShort());
            pairs.add(read.getInt() & 0xffffffffL);
        }
        assertThat(pairs, contains(2L, 0L, 3L, 100L, 4L, (long) (1 << 20), 6L, 64L * 1024));
    }

    private static List<Http2Event> pump(Http2Connection from, Http2Connection to) {
        List<Http2Event> events = new ArrayList<>();
        for (ByteBuffer buffer : from.drainOutput()) {
            events.addAll(to.receive(buffer, 0));
        }
        return events;
    }
}
