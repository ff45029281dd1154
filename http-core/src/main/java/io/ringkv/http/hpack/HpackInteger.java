package io.ringkv.http.hpack;

import java.nio.ByteBuffer;

/** Prefix-coded integers, RFC 7541 §5.1. */
final class HpackInteger {
    /** Continuation octets beyond which a value cannot fit in an int (7 bits each). */
    private static final int MAX_CONTINUATION_OCTETS = 5;

    private HpackInteger() {
    }

    /**
     * Writes {@code value} with an N-bit prefix at {@code out[at]}, OR-ing {@code firstBits}
     * into the first octet; returns the index after the last octet written.
     */
    static int encode(byte[] out, int at, int firstBits, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out[at] = (byte) (firstBits | value);
            return at + 1;
        }
        out[at++] = (byte) (firstBits | max);
        int rest = value - max;
        while (rest >= 0x80) {
            out[at++] = (byte) ((rest & 0x7f) | 0x80);
            rest >>>= 7;
        }
        out[at++] = (byte) rest;
        return at;
    }

    /** Octets {@link #encode} writes for this value. */
    static int encodedLength(int prefixBits, int value) {
        int octets = 1;
        for (int rest = value - ((1 << prefixBits) - 1); rest >= 0; rest >>>= 7) {
            octets++;
            if (rest < 0x80) {
                break;
            }
        }
        return octets;
    }

    /** Reads an N-bit-prefix integer; the caller has checked that one octet is available. */
    static int decode(ByteBuffer in, int prefixBits) throws HpackException {
        int max = (1 << prefixBits) - 1;
        int value = in.get() & max;
        if (value < max) {
            return value;
        }
        long total = value;
        for (int i = 0, shift = 0; i < MAX_CONTINUATION_OCTETS; i++, shift += 7) {
            if (!in.hasRemaining()) {
                throw new HpackException("integer_truncated");
            }
            int b = in.get() & 0xff;
            total += (long) (b & 0x7f) << shift;
            if (total > Integer.MAX_VALUE) {
                throw new HpackException("integer_overflow");
            }
            if ((b & 0x80) == 0) {
                return (int) total;
            }
        }
        throw new HpackException("integer_overflow");
    }
}
