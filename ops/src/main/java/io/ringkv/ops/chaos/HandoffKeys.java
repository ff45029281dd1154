package io.ringkv.ops.chaos;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The keys and values of a hinted-handoff measurement: write number n goes to key
 * {@code handoff-<n, 9 digits>} (so key order is write order) with a value of exactly
 * {@link #VALUE_BYTES} printable bytes, a function of the seed and n. Both have a fixed length,
 * which is what lets {@link CatchUpCheck} split a local range's body (its records run together,
 * {@code key '\n' value} each) without the chunk boundaries.
 *
 * <p>Threading: immutable.
 */
final class HandoffKeys {
    static final int VALUE_BYTES = 100;
    static final String PREFIX = "handoff-";
    static final int DIGITS = 9;
    static final int KEY_BYTES = PREFIX.length() + DIGITS;
    /** Key numbers must fit the fixed width. */
    static final long MAX_SEQUENCE = 999_999_999L;

    private static final byte[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".getBytes(StandardCharsets.US_ASCII);

    private final long seed;

    HandoffKeys(long seed) {
        this.seed = seed;
    }

    static String key(long sequence) {
        if (sequence < 0 || sequence > MAX_SEQUENCE) {
            throw new IllegalArgumentException("write number out of range: " + sequence);
        }
        return PREFIX + String.format("%0" + DIGITS + "d", sequence);
    }

    /** The write number of a key this class made, or -1 for any other key. */
    static long sequence(byte[] key, int offset, int length) {
        if (length != KEY_BYTES || !Arrays.equals(key, offset, offset + PREFIX.length(),
                PREFIX.getBytes(StandardCharsets.US_ASCII), 0, PREFIX.length())) {
            return -1;
        }
        long n = 0;
        for (int i = offset + PREFIX.length(); i < offset + length; i++) {
            int digit = key[i] - '0';
            if (digit < 0 || digit > 9) {
                return -1;
            }
            n = n * 10 + digit;
        }
        return n;
    }

    byte[] value(long sequence) {
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + sequence);
        byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < value.length; i++) {
            value[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return value;
    }
}
