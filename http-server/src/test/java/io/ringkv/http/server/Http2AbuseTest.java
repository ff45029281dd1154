package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ringkv.http.h2.ContinuationFrame;
import io.ringkv.http.h2.DataFrame;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.Frame;
import io.ringkv.http.h2.FrameGenerator;
import io.ringkv.http.h2.FrameParser;
import io.ringkv.http.h2.GoAwayFrame;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.Http2Error;
import io.ringkv.http.h2.PingFrame;
import io.ringkv.http.h2.Preface;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HpackEncoder;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Floods from a real socket against the h2c server: each closes the abusive connection with
 * GOAWAY(ENHANCE_YOUR_CALM) (http-core's abuse limits, RFC 9113 §10.5), while another
 * connection still gets its answer. An HPACK bomb costs its own stream only.
 */
class Http2AbuseTest {
    private static final int FLOOD = 2_000;
    private final ServerFixture fixture = new ServerFixture();
    private final FrameGenerator generator = new FrameGenerator();

    @AfterEach
    void tearDown() throws Exception {
        fixture.closeAll();
    }

    enum Attack { PING_FLOOD, SETTINGS_FLOOD, EMPTY_DATA_FLOOD, CONTINUATION_FLOOD }

    @ParameterizedTest
    @EnumSource(Attack.class)
    void floodClosesTheAbusiveConnectionOnly(Attack attack) throws Exception {
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        try (Socket socket = new Socket("127.0.0.1", server.port());
             Http2PriorKnowledgeTest.H2Peer bystander = new Http2PriorKnowledgeTest.H2Peer(server.port())) {
            socket.setSoTimeout(30_000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            write(out, Preface.bytes());
            write(out, generator.generate(new SettingsFrame(false, List.of())));
            for (ByteBuffer frame : attackFrames(attack)) {
                write(out, frame);
            }
            try {
                socket.getOutputStream().write(out.toByteArray());
            } catch (SocketException closedEarly) {
                // the server may close before the whole flood is written; its GOAWAY is still read
            }
            GoAwayFrame goAway = readUntilGoAway(socket.getInputStream());
            assertEquals(ErrorCode.ENHANCE_YOUR_CALM.code, goAway == null ? -1 : goAway.errorCode(), attack + ": " + goAway);
            int id = bystander.request("GET", "/unaffected", null);
            assertEquals("GET /unaffected 0\n", bystander.awaitAnswers(1).get(id).text());
        }
    }

    /**
     * An HPACK bomb: one 3 KB field enters the dynamic table, then thousands of one-octet
     * references to it ask for a header list of ~15 MB from an 8 KB block. The server must not
     * build that list: the stream is refused (RST_STREAM), the HPACK context stays in step, so the
     * next stream on the same connection is answered, and so is another connection.
     */
    @Test
    void anHpackBombCostsItsStreamOnly() throws Exception {
        HttpServer server = fixture.start(Http2PriorKnowledgeTest.echo());
        try (Socket socket = new Socket("127.0.0.1", server.port());
             Http2PriorKnowledgeTest.H2Peer bystander = new Http2PriorKnowledgeTest.H2Peer(server.port())) {
            socket.setSoTimeout(30_000);
            HpackEncoder encoder = new HpackEncoder();
            List<HeaderField> bomb = new ArrayList<>(List.of(new HeaderField(":method", "GET"),
                    new HeaderField(":scheme", "http"), new HeaderField(":authority", "127.0.0.1"),
                    new HeaderField(":path", "/bomb")));
            HeaderField big = new HeaderField("x-big", "a".repeat(3_000));
            for (int i = 0; i < 5_000; i++) {
                bomb.add(big);
            }
            ByteBuffer bombBlock = encoder.encode(bomb);
            assertTrue(bombBlock.remaining() < 10_000, "the bomb is small on the wire: " + bombBlock.remaining());
            ByteBuffer normalBlock = encoder.encode(List.of(new HeaderField(":method", "GET"),
                    new HeaderField(":scheme", "http"), new HeaderField(":authority", "127.0.0.1"),
                    new HeaderField(":path", "/after-the-bomb")));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            write(out, Preface.bytes());
            write(out, generator.generate(new SettingsFrame(false, List.of())));
            write(out, generator.generate(new HeadersFrame(1, bombBlock, true, true)));
            write(out, generator.generate(new HeadersFrame(3, normalBlock, true, true)));
            socket.getOutputStream().write(out.toByteArray());

            Map<Integer, String> outcome = StreamOutcomes.read(socket.getInputStream(), 2);
            assertTrue(outcome.get(1).startsWith("RST_STREAM"), "the bomb's stream is refused: " + outcome);
            assertEquals("HEADERS :status=200", outcome.get(3), "the next stream is answered: " + outcome);
            int id = bystander.request("GET", "/unaffected", null);
            assertEquals("GET /unaffected 0\n", bystander.awaitAnswers(1).get(id).text());
        }
    }

    private List<ByteBuffer> attackFrames(Attack attack) {
        List<ByteBuffer> frames = new ArrayList<>();
        ByteBuffer block = new HpackEncoder().encode(List.of(new HeaderField(":method", "POST"),
                new HeaderField(":scheme", "http"), new HeaderField(":authority", "127.0.0.1"),
                new HeaderField(":path", "/flood")));
        switch (attack) {
            case PING_FLOOD -> {
                for (int i = 0; i < FLOOD; i++) {
                    frames.add(generator.generate(new PingFrame(i, false)));
                }
            }
            case SETTINGS_FLOOD -> {
                for (int i = 0; i < FLOOD; i++) {
                    frames.add(generator.generate(new SettingsFrame(false, List.of())));
                }
            }
            case EMPTY_DATA_FLOOD -> {
                frames.add(generator.generate(new HeadersFrame(1, block, false, true)));
                for (int i = 0; i < FLOOD; i++) {
                    frames.add(generator.generate(new DataFrame(1, ByteBuffer.allocate(0), false, 0)));
                }
            }
            case CONTINUATION_FLOOD -> {
                frames.add(generator.generate(new HeadersFrame(1, block, false, false)));
                for (int i = 0; i < FLOOD; i++) {
                    // literal header field without indexing, new name "x" = "y": valid, endless
                    frames.add(generator.generate(new ContinuationFrame(1,
                            ByteBuffer.wrap(new byte[] {0x00, 0x01, 'x', 0x01, 'y'}), false)));
                }
            }
        }
        return frames;
    }

    private static void write(ByteArrayOutputStream out, ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        out.writeBytes(bytes);
    }

    /** Parses the server's frames until GOAWAY or the close; null when the close came without one. */
    private static GoAwayFrame readUntilGoAway(InputStream in) throws Exception {
        FrameParser parser = FrameParser.forClient();
        parser.maxFrameSize((1 << 24) - 1);
        ByteBuffer pending = ByteBuffer.allocate(0);
        byte[] buffer = new byte[64 * 1024];
        while (true) {
            int n;
            try {
                n = in.read(buffer);
            } catch (SocketException reset) {
                return null;
            }
            if (n < 0) {
                return null;
            }
            ByteBuffer joined = ByteBuffer.allocate(pending.remaining() + n);
            joined.put(pending).put(buffer, 0, n).flip();
            try {
                for (Frame frame = parser.next(joined); frame != null; frame = parser.next(joined)) {
                    if (frame instanceof GoAwayFrame goAway) {
                        return goAway;
                    }
                }
            } catch (Http2Error e) {
                throw new AssertionError("the server sent a malformed frame", e);
            }
            pending = ByteBuffer.allocate(joined.remaining()).put(joined).flip();
        }
    }
}
