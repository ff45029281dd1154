package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Generate, then parse, every frame type with every flag, under every chunking; the same
 * parser is used twice per plan to prove it resets between frames.
 */
class FrameRoundTripTest {
    private static final int[] PADDINGS = {Frame.UNPADDED, 0, 7};

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (List<Frame> sequence : sequences()) {
            for (Chunking chunking : Chunking.values()) {
                cases.add(Arguments.of(describe(sequence), chunking, sequence));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void frameRoundTripsUnderEveryChunking(String name, Chunking chunking, List<Frame> sequence) throws Http2Error {
        FrameGenerator generator = new FrameGenerator();
        ByteBuffer wire = concat(sequence.stream().map(generator::generate).toList());
        ByteBuffer twice = concat(List.of(wire.duplicate(), wire.duplicate()));
        List<Frame> expected = new ArrayList<>(sequence);
        expected.addAll(sequence);
        for (List<ByteBuffer> plan : chunking.plans(twice)) {
            FrameParser parser = FrameParser.forClient();
            // An unpadded DATA frame cut by the chunking comes out in pieces: compare the bytes.
            assertThat(joinDataPieces(parseAll(parser, plan)), equalTo(joinDataPieces(expected)));
        }
    }

    /** Merges runs of unpadded DATA frames of one stream, up to and including one with END_STREAM. */
    static List<Frame> joinDataPieces(List<Frame> frames) {
        List<Frame> joined = new ArrayList<>();
        for (Frame frame : frames) {
            if (frame instanceof DataFrame piece && piece.padLength() == Frame.UNPADDED && !joined.isEmpty()
                    && joined.getLast() instanceof DataFrame open && open.padLength() == Frame.UNPADDED
                    && !open.endStream() && open.streamId() == piece.streamId()) {
                ByteBuffer data = ByteBuffer.allocate(open.data().remaining() + piece.data().remaining());
                data.put(open.data().duplicate()).put(piece.data().duplicate()).flip();
                joined.set(joined.size() - 1, new DataFrame(piece.streamId(), data, piece.endStream()));
            } else {
                joined.add(frame);
            }
        }
        return joined;
    }

    static List<Frame> parseAll(FrameParser parser, List<ByteBuffer> reads) throws Http2Error {
        List<Frame> frames = new ArrayList<>();
        for (ByteBuffer read : reads) {
            Frame frame;
            while ((frame = parser.next(read)) != null) {
                frames.add(frame);
            }
        }
        return frames;
    }

    static List<Frame> parseAllQuietly(FrameParser parser, ByteBuffer wire) {
        try {
            return parseAll(parser, List.of(wire));
        } catch (Http2Error e) {
            throw new AssertionError(e);
        }
    }

    static ByteBuffer concat(List<ByteBuffer> parts) {
        int total = parts.stream().mapToInt(ByteBuffer::remaining).sum();
        ByteBuffer out = ByteBuffer.allocate(total);
        parts.forEach(p -> out.put(p.duplicate()));
        return out.flip();
    }

    private static String describe(List<Frame> sequence) {
        return sequence.get(0).toString().replaceAll("java.nio.HeapByteBuffer\\[[^]]*]", "buf");
    }

    private static List<List<Frame>> sequences() {
        List<List<Frame>> all = new ArrayList<>();
        addData(all);
        addHeaders(all);
        addPushPromise(all);
        all.add(List.of(new PriorityFrame(3, new Priority(1, false, 16))));
        all.add(List.of(new PriorityFrame(5, new Priority(0x7fffffff, true, 256))));
        all.add(List.of(new PriorityFrame(7, new Priority(0, true, 1))));
        all.add(List.of(new RstStreamFrame(1, ErrorCode.CANCEL)));
        all.add(List.of(new RstStreamFrame(0x7fffffff, 0x1234)));
        all.add(List.of(SettingsFrame.ACK_FRAME));
        all.add(List.of(new SettingsFrame(false, List.of())));
        all.add(List.of(new SettingsFrame(false, List.of(
                new SettingsFrame.Setting(SettingId.HEADER_TABLE_SIZE, 0),
                new SettingsFrame.Setting(SettingId.ENABLE_PUSH, 0),
                new SettingsFrame.Setting(SettingId.MAX_CONCURRENT_STREAMS, 0xffffffffL),
                new SettingsFrame.Setting(SettingId.INITIAL_WINDOW_SIZE, Integer.MAX_VALUE),
                new SettingsFrame.Setting(SettingId.MAX_FRAME_SIZE, 16_777_215),
                new SettingsFrame.Setting(SettingId.MAX_HEADER_LIST_SIZE, 8192),
                new SettingsFrame.Setting(0xabcd, 42)))));
        all.add(List.of(new PingFrame(0x0102030405060708L, false)));
        all.add(List.of(new PingFrame(-1L, true)));
        all.add(List.of(new GoAwayFrame(0, ErrorCode.NO_ERROR, "")));
        all.add(List.of(new GoAwayFrame(0x7fffffff, ErrorCode.ENHANCE_YOUR_CALM, "rapid_reset")));
        all.add(List.of(new WindowUpdateFrame(0, 1)));
        all.add(List.of(new WindowUpdateFrame(13, Integer.MAX_VALUE)));
        return all;
    }

    private static void addData(List<List<Frame>> all) {
        for (boolean endStream : new boolean[] {false, true}) {
            for (int padding : PADDINGS) {
                all.add(List.of(new DataFrame(1, bytes("hello"), endStream, padding)));
                all.add(List.of(new DataFrame(3, bytes(""), endStream, padding)));
            }
        }
    }

    private static void addHeaders(List<List<Frame>> all) {
        for (boolean endStream : new boolean[] {false, true}) {
            for (boolean endHeaders : new boolean[] {false, true}) {
                for (Priority priority : new Priority[] {null, new Priority(0, true, 42)}) {
                    for (int padding : PADDINGS) {
                        HeadersFrame headers = new HeadersFrame(5, bytes("\u0082\u0086block"), endStream, endHeaders,
                                priority, padding);
                        all.add(endHeaders ? List.of(headers) : List.of(headers,
                                new ContinuationFrame(5, bytes("more"), false),
                                new ContinuationFrame(5, bytes(""), true)));
                    }
                }
            }
        }
    }

    private static void addPushPromise(List<List<Frame>> all) {
        for (boolean endHeaders : new boolean[] {false, true}) {
            for (int padding : PADDINGS) {
                PushPromiseFrame push = new PushPromiseFrame(1, 2, bytes("promised"), endHeaders, padding);
                all.add(endHeaders ? List.of(push) : List.of(push, new ContinuationFrame(1, bytes("rest"), true)));
            }
        }
    }

    static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.ISO_8859_1));
    }
}
