package io.ringkv.http.h2;

import static io.ringkv.http.h2.FrameRoundTripTest.bytes;
import static io.ringkv.http.h2.FrameRoundTripTest.concat;
import static io.ringkv.http.h2.FrameRoundTripTest.parseAll;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.sameInstance;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameParserTest {
    private final FrameGenerator generator = new FrameGenerator();

    @Test
    void serverParserReadsPrefaceThenSettings() throws Http2Error {
        SettingsFrame settings = new SettingsFrame(false, List.of(new SettingsFrame.Setting(SettingId.ENABLE_PUSH, 0)));
        ByteBuffer wire = concat(List.of(Preface.bytes(), generator.generate(settings)));
        for (Chunking chunking : Chunking.values()) {
            for (List<ByteBuffer> plan : chunking.plans(wire)) {
                assertThat(parseAll(FrameParser.forServer(), plan), contains(settings));
            }
        }
    }

    @Test
    void truncatedInputWaitsForMoreBytes() throws Http2Error {
        ByteBuffer whole = generator.generate(new PingFrame(42, false));
        FrameParser parser = FrameParser.forClient();
        assertThat(parser.next(whole.slice(0, whole.remaining() - 1)), nullValue());
        assertThat(parser.next(whole.slice(whole.remaining() - 1, 1)), equalTo(new PingFrame(42, false)));
    }

    @Test
    void aCutDataFrameIsHandedOnInPiecesThatShareTheInputAndEndWithTheLast() throws Http2Error {
        ByteBuffer whole = generator.generate(new DataFrame(1, bytes("abcdef"), true));
        FrameParser parser = FrameParser.forClient();
        ByteBuffer first = whole.slice(0, whole.remaining() - 2);
        assertThat(parser.next(first), equalTo(new DataFrame(1, bytes("abcd"), false)));
        assertThat(parser.next(first), nullValue());
        ByteBuffer rest = whole.slice(whole.remaining() - 2, 2);
        DataFrame last = (DataFrame) parser.next(rest);
        assertThat(last, equalTo(new DataFrame(1, bytes("ef"), true)));
        assertThat("a slice of the input, not a copy", last.data().array(), sameInstance(rest.array()));
    }

    @Test
    void aCutPaddedDataFrameStillComesWhole() throws Http2Error {
        ByteBuffer whole = generator.generate(new DataFrame(1, bytes("abcdef"), true, 3));
        FrameParser parser = FrameParser.forClient();
        assertThat(parser.next(whole.slice(0, whole.remaining() - 1)), nullValue());
        assertThat(parser.next(whole.slice(whole.remaining() - 1, 1)), equalTo(new DataFrame(1, bytes("abcdef"), true, 3)));
    }

    @Test
    void unknownFrameTypesAreSkipped() throws Http2Error {
        ByteBuffer unknown = Hex.buffer("000003 fa ff 00000001 010203");
        ByteBuffer ping = generator.generate(new PingFrame(7, false));
        assertThat(parseAll(FrameParser.forClient(), List.of(concat(List.of(unknown, ping)))),
                contains(new PingFrame(7, false)));
    }

    @Test
    void parserContinuesAfterStreamError() throws Http2Error {
        ByteBuffer wire = concat(List.of(Hex.buffer("000004 08 00 00000001 00000000"),
                generator.generate(new PingFrame(1, true))));
        FrameParser parser = FrameParser.forClient();
        StreamError error = assertThrows(StreamError.class, () -> parser.next(wire));
        assertThat(error.streamId(), equalTo(1));
        assertThat(parser.next(wire), equalTo(new PingFrame(1, true)));
    }

    @Test
    void largerMaxFrameSizeAdmitsLargerFrames() throws Http2Error {
        generator.maxFrameSize(40_000);
        DataFrame big = new DataFrame(1, ByteBuffer.allocate(30_000), false);
        ByteBuffer wire = generator.generate(big);
        assertThrows(ConnectionError.class, () -> FrameParser.forClient().next(wire.duplicate()));
        FrameParser parser = FrameParser.forClient();
        parser.maxFrameSize(40_000);
        assertThat(parser.next(wire), equalTo(big));
    }

    @Test
    void generatorRefusesDataLargerThanPeerMaxFrameSize() {
        DataFrame big = new DataFrame(1, ByteBuffer.allocate(16_385), false);
        assertThrows(IllegalArgumentException.class, () -> generator.generate(big));
    }

    @Test
    void headerBlockLargerThanMaxFrameSizeIsSplitIntoContinuations() throws Http2Error {
        byte[] block = new byte[40_000];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) i;
        }
        ByteBuffer wire = generator.headers(3, ByteBuffer.wrap(block), true, new Priority(0, false, 16));
        List<Frame> frames = new ArrayList<>();
        for (List<ByteBuffer> plan : Chunking.WHOLE.plans(wire)) {
            frames.addAll(parseAll(FrameParser.forClient(), plan));
        }
        assertThat(frames.size(), equalTo(3));
        HeadersFrame first = (HeadersFrame) frames.get(0);
        assertThat(first.endHeaders(), equalTo(false));
        assertThat(first.endStream(), equalTo(true));
        assertThat(first.fragment().remaining(), equalTo(16_384 - 5));
        ContinuationFrame last = (ContinuationFrame) frames.get(2);
        assertThat(last.endHeaders(), equalTo(true));
        ByteBuffer joined = concat(List.of(first.fragment(), ((ContinuationFrame) frames.get(1)).fragment(),
                last.fragment()));
        assertThat(joined, equalTo(ByteBuffer.wrap(block)));
    }

    @Test
    void pushPromiseBlockIsSplitIntoContinuations() throws Http2Error {
        ByteBuffer wire = generator.pushPromise(1, 2, ByteBuffer.allocate(20_000));
        List<Frame> frames = parseAll(FrameParser.forClient(), List.of(wire));
        assertThat(frames.size(), equalTo(2));
        assertThat(((PushPromiseFrame) frames.get(0)).promisedStreamId(), equalTo(2));
    }

    @Test
    void emptyInputYieldsNothing() throws Http2Error {
        assertThat(parseAll(FrameParser.forClient(), List.of(ByteBuffer.allocate(0))), empty());
    }
}
