package io.ringkv.http.h1;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Seeded byte-wise mutations and random splits for the parser robustness tests. */
final class Mutations {
    private static final int MUTATIONS_MAX = 4;
    private static final int DUPLICATE_BYTES_MAX = 16;
    private static final int PIECE_BYTES_MAX = 32;
    /** Bytes that matter to the grammar, chosen half the time instead of a uniform byte. */
    private static final byte[] INTERESTING = "\r\n \t:;,0aF-\u0000\u007f\u00ff".getBytes(ISO_8859_1);

    private Mutations() {
    }

    /** 1 to {@value #MUTATIONS_MAX} replacements, insertions, deletions or duplicated runs. */
    static byte[] mutate(byte[] valid, Random random) {
        byte[] wire = valid.clone();
        for (int m = 1 + random.nextInt(MUTATIONS_MAX); m > 0; m--) {
            int at = random.nextInt(wire.length);
            wire = switch (random.nextInt(4)) {
                case 0 -> replace(wire, at, randomByte(random));
                case 1 -> insert(wire, at, randomByte(random));
                case 2 -> wire.length > 1 ? delete(wire, at) : wire;
                default -> duplicate(wire, at, 1 + random.nextInt(Math.min(DUPLICATE_BYTES_MAX, wire.length - at)));
            };
        }
        return wire;
    }

    static List<byte[]> randomPieces(byte[] wire, Random random) {
        List<byte[]> pieces = new ArrayList<>();
        for (int at = 0; at < wire.length; ) {
            int size = 1 + random.nextInt(Math.min(wire.length - at, 1 + random.nextInt(PIECE_BYTES_MAX)));
            pieces.add(Arrays.copyOfRange(wire, at, at + size));
            at += size;
        }
        return pieces;
    }

    static String printable(byte[] wire) {
        return new String(wire, ISO_8859_1).replace("\r", "\\r").replace("\n", "\\n");
    }

    private static byte randomByte(Random random) {
        return random.nextBoolean() ? INTERESTING[random.nextInt(INTERESTING.length)] : (byte) random.nextInt(256);
    }

    private static byte[] replace(byte[] wire, int at, byte b) {
        wire[at] = b;
        return wire;
    }

    private static byte[] insert(byte[] wire, int at, byte b) {
        byte[] out = new byte[wire.length + 1];
        System.arraycopy(wire, 0, out, 0, at);
        out[at] = b;
        System.arraycopy(wire, at, out, at + 1, wire.length - at);
        return out;
    }

    private static byte[] delete(byte[] wire, int at) {
        byte[] out = new byte[wire.length - 1];
        System.arraycopy(wire, 0, out, 0, at);
        System.arraycopy(wire, at + 1, out, at, wire.length - at - 1);
        return out;
    }

    private static byte[] duplicate(byte[] wire, int at, int count) {
        byte[] out = Arrays.copyOf(wire, wire.length + count);
        System.arraycopy(wire, at, out, at + count, wire.length - at);
        return out;
    }
}
