package io.ringkv.http.h1;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** How a test feeds wire bytes to a parser: the outcome must not depend on it (STYLE.md §4). */
enum Chunking {
    WHOLE,
    ONE_BYTE,
    /** Two pieces, split at each offset; past {@link #EVERY_OFFSET_BYTES_MAX} at a sample of offsets. */
    SPLIT_AT_EVERY_OFFSET;

    /** Inputs longer than this are split at about this many evenly spaced offsets (cost is quadratic). */
    static final int EVERY_OFFSET_BYTES_MAX = 2048;

    /** Every feed this chunking makes of {@code wire}; each feed is the list of pieces, in order. */
    List<List<byte[]>> feeds(byte[] wire) {
        return switch (this) {
            case WHOLE -> List.of(List.of(wire));
            case ONE_BYTE -> List.of(oneByteAtATime(wire));
            case SPLIT_AT_EVERY_OFFSET -> splitsInTwo(wire);
        };
    }

    private static List<byte[]> oneByteAtATime(byte[] wire) {
        List<byte[]> pieces = new ArrayList<>(wire.length);
        for (byte b : wire) {
            pieces.add(new byte[] {b});
        }
        return pieces;
    }

    private static List<List<byte[]>> splitsInTwo(byte[] wire) {
        int step = Math.max(1, wire.length / EVERY_OFFSET_BYTES_MAX);
        List<List<byte[]>> feeds = new ArrayList<>();
        for (int at = 1; at < wire.length; at += step) {
            feeds.add(List.of(Arrays.copyOfRange(wire, 0, at), Arrays.copyOfRange(wire, at, wire.length)));
        }
        if (feeds.isEmpty()) {
            feeds.add(List.of(wire));
        }
        return feeds;
    }
}
