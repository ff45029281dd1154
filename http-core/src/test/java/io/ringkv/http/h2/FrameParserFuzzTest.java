package io.ringkv.http.h2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzz target: whatever the bytes and however they are split, the frame parser either yields
 * frames or fails with an {@link Http2Error}; any other exception escapes and is a finding.
 *
 * <p>In the normal test pass Jazzer runs in regression mode over the seed corpus in
 * {@code resources/io/ringkv/http/h2/FrameParserFuzzTestInputs/}, and a seeded mutation run
 * (below) feeds the same target a bounded number of inputs. {@code JAZZER_FUZZ=1} fuzzes for
 * real (docs/http2.md).
 */
class FrameParserFuzzTest {
    private static final int MUTATION_RUNS = 20_000;

    @FuzzTest(maxDuration = "10m")
    void frameParserFailsOnlyWithHttp2Errors(byte[] input) {
        parse(input);
    }

    @Test
    void seededMutationsOfValidFramesFailOnlyWithHttp2Errors() {
        byte[] valid = validFrames();
        Random random = new Random(9113);
        int frames = 0;
        for (int run = 0; run < MUTATION_RUNS; run++) {
            frames += parse(Mutator.mutate(valid, random));
        }
        assertThat(frames, greaterThan(0));
    }

    /** Feeds the input in two reads split at a point chosen by the input; returns frames seen. */
    static int parse(byte[] input) {
        FrameParser parser = (input.length > 0 && (input[0] & 1) == 1) ? FrameParser.forServer() : FrameParser.forClient();
        int split = input.length == 0 ? 0 : (input[input.length - 1] & 0xff) % (input.length + 1);
        int frames = 0;
        for (ByteBuffer read : new ByteBuffer[] {ByteBuffer.wrap(input, 0, split), ByteBuffer.wrap(input, split, input.length - split)}) {
            while (true) {
                try {
                    if (parser.next(read) == null) {
                        break;
                    }
                    frames++;
                } catch (Http2Error expected) {
                    if (expected instanceof ConnectionError) {
                        return frames;
                    }
                    // the parser stays usable after a stream error
                }
            }
        }
        return frames;
    }

    private static byte[] validFrames() {
        FrameGenerator generator = new FrameGenerator();
        ByteBuffer all = FrameRoundTripTest.concat(java.util.List.of(
                generator.generate(new SettingsFrame(false, java.util.List.of(new SettingsFrame.Setting(1, 4096)))),
                generator.headers(1, ByteBuffer.wrap(new byte[40]), false, new Priority(0, false, 16)),
                generator.generate(new DataFrame(1, ByteBuffer.wrap(new byte[10]), true, 3)),
                generator.generate(new WindowUpdateFrame(0, 1000)),
                generator.generate(new PingFrame(5, false)),
                generator.generate(new RstStreamFrame(3, ErrorCode.CANCEL)),
                generator.generate(new GoAwayFrame(1, ErrorCode.NO_ERROR, "bye"))));
        byte[] bytes = new byte[all.remaining()];
        all.get(bytes);
        return bytes;
    }
}
