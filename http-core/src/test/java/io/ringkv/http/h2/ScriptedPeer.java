package io.ringkv.http.h2;

import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HpackEncoder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The far end of a connection under test, played frame by frame: it writes what a script
 * says (valid or not) and parses what the connection under test sends back.
 */
final class ScriptedPeer {
    final Http2Connection connection;
    final FrameGenerator generator = new FrameGenerator();
    final HpackEncoder encoder = new HpackEncoder();
    private final FrameParser parser;
    long nowNanos = 1_000_000_000L;

    /** A connection of {@code role} that has exchanged preface and SETTINGS with this peer. */
    ScriptedPeer(Role role, Http2Config config, SettingsFrame.Setting... peerSettings) {
        this.connection = new Http2Connection(role, config);
        this.parser = role == Role.CLIENT ? FrameParser.forServer() : FrameParser.forClient();
        parser.maxFrameSize(16_777_215);
        connection.start();
        if (role == Role.SERVER) {
            send(Preface.bytes());
        }
        send(new SettingsFrame(false, List.of(peerSettings)));
        send(SettingsFrame.ACK_FRAME);
        sent();
    }

    List<Http2Event> send(Frame... frames) {
        List<ByteBuffer> wire = new ArrayList<>();
        for (Frame frame : frames) {
            wire.add(generator.generate(frame));
        }
        return send(FrameRoundTripTest.concat(wire));
    }

    List<Http2Event> send(ByteBuffer bytes) {
        return connection.receive(bytes, nowNanos);
    }

    /** A request (or response) header block on {@code streamId}, in one HEADERS frame. */
    List<Http2Event> sendHeaders(int streamId, boolean endStream, String... nameValues) {
        return send(new HeadersFrame(streamId, encoder.encode(fields(nameValues)), endStream, true));
    }

    List<Http2Event> sendRequest(int streamId, boolean endStream, String... extra) {
        List<String> all = new ArrayList<>(List.of(":method", "POST", ":scheme", "https", ":path", "/v0/entity",
                ":authority", "node"));
        all.addAll(List.of(extra));
        return sendHeaders(streamId, endStream, all.toArray(String[]::new));
    }

    /** Frames the connection under test has queued since the last call. */
    List<Frame> sent() {
        List<Frame> frames = new ArrayList<>();
        for (ByteBuffer buffer : connection.drainOutput()) {
            try {
                Frame frame;
                while ((frame = parser.next(buffer)) != null) {
                    frames.add(frame);
                }
            } catch (Http2Error e) {
                throw new AssertionError("connection under test sent an invalid frame", e);
            }
        }
        return frames;
    }

    static List<HeaderField> fields(String... nameValues) {
        List<HeaderField> fields = new ArrayList<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            fields.add(new HeaderField(nameValues[i], nameValues[i + 1]));
        }
        return fields;
    }
}
