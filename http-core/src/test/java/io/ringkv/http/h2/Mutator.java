package io.ringkv.http.h2;

import java.util.Arrays;
import java.util.Random;

/** A small seeded byte mutator for bounded, reproducible fuzz runs inside the test pass. */
public final class Mutator {
    private Mutator() {
    }

    public static byte[] mutate(byte[] seed, Random random) {
        byte[] out = seed.clone();
        int edits = 1 + random.nextInt(4);
        for (int i = 0; i < edits && out.length > 0; i++) {
            int at = random.nextInt(out.length);
            switch (random.nextInt(5)) {
                case 0 -> out[at] = (byte) random.nextInt(256);
                case 1 -> out[at] ^= (byte) (1 << random.nextInt(8));
                case 2 -> out = Arrays.copyOf(out, at);
                case 3 -> out[at] = (byte) (random.nextBoolean() ? 0xff : 0x00);
                default -> {
                    byte[] grown = Arrays.copyOf(out, out.length + 1 + random.nextInt(8));
                    for (int j = out.length; j < grown.length; j++) {
                        grown[j] = (byte) random.nextInt(256);
                    }
                    out = grown;
                }
            }
        }
        return out;
    }
}
