package io.ringkv.http.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ringkv.http.LogText;
import io.ringkv.http.h2.ErrorCode;
import io.ringkv.http.h2.FrameGenerator;
import io.ringkv.http.h2.HeadersFrame;
import io.ringkv.http.h2.Preface;
import io.ringkv.http.h2.SettingsFrame;
import io.ringkv.http.hpack.HeaderField;
import io.ringkv.http.hpack.HpackEncoder;
import java.io.ByteArrayOutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests whose pseudo-header fields carry CR, LF, NUL or other bytes a request line could not,
 * sent over a real socket with a hand-encoded HPACK block (a conforming client would refuse to
 * send them): each is reset with RST_STREAM(PROTOCOL_ERROR) before any handler sees it, and the
 * next request on the same connection is answered (RFC 9113 §8.1.1, §8.2.1).
 */
class MalformedH2RequestTest {
    private final ServerFixture fixture = new ServerFixture();
    private final FrameGenerator generator = new FrameGenerator();

    @AfterEach
    void tearDown() throws Exception {
        fixture.closeAll();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        ":path      | /v0/entity?id=a\\r\\nX: y",
        ":path      | /v0/entity?id=a\\x00",
        ":path      | /v0/entity?id=a\\x1b[2J",
        ":method    | GET\\r\\nX: y",
        ":authority | 127.0.0.1\\r\\nX: y",
        ":scheme    | http\\n",
    })
    void isResetBeforeAnyHandlerAndTheConnectionServesOn(String name, String escapedValue) throws Exception {
        String value = unescape(escapedValue);
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        HttpServer server = fixture.start(request -> {
            seen.add(request.method() + " " + request.path() + "?" + request.query());
            return CompletableFuture.completedFuture(Response.text(200, "ok"));
        });
        List<HeaderField> bad = new ArrayList<>(List.of(new HeaderField(":method", "GET"), new HeaderField(":scheme", "http"),
                new HeaderField(":authority", "127.0.0.1"), new HeaderField(":path", "/v0/entity?id=a")));
        bad.replaceAll(f -> f.name().equals(name) ? new HeaderField(name, value) : f);
        HpackEncoder encoder = new HpackEncoder();
        ByteBuffer badBlock = encoder.encode(bad);
        ByteBuffer goodBlock = encoder.encode(List.of(new HeaderField(":method", "GET"), new HeaderField(":scheme", "http"),
                new HeaderField(":authority", "127.0.0.1"), new HeaderField(":path", "/v0/entity?id=b")));
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            write(out, Preface.bytes());
            write(out, generator.generate(new SettingsFrame(false, List.of())));
            write(out, generator.generate(new HeadersFrame(1, badBlock, true, true)));
            write(out, generator.generate(new HeadersFrame(3, goodBlock, true, true)));
            socket.getOutputStream().write(out.toByteArray());

            Map<Integer, String> outcome = StreamOutcomes.read(socket.getInputStream(), 2);
            assertEquals("RST_STREAM " + ErrorCode.PROTOCOL_ERROR.code, outcome.get(1),
                    name + "=" + LogText.escape(value) + ": " + outcome);
            assertEquals("HEADERS :status=200", outcome.get(3), "the connection serves on: " + outcome);
            assertEquals(List.of("GET /v0/entity?id=b"), List.copyOf(seen), "only the valid request reaches the handler");
        }
    }

    /** The test's value with \r, \n and \xNN written out, as a CSV source cannot hold them raw. */
    private static String unescape(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char kind = text.charAt(++i);
            switch (kind) {
                case 'r' -> out.append('\r');
                case 'n' -> out.append('\n');
                case 'x' -> {
                    out.append((char) Integer.parseInt(text.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                default -> throw new IllegalArgumentException("unknown escape \\" + kind);
            }
        }
        return out.toString();
    }

    private static void write(ByteArrayOutputStream out, ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        out.writeBytes(bytes);
    }
}
