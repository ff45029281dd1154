package io.ringkv.http.hpack;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The static Huffman code of RFC 7541 Appendix B, both ways.
 *
 * <p>The code is canonical: within one length, codes increase with the symbol value, and
 * each length's first code follows the last code of the previous length shifted left. So the
 * 257 code lengths below determine every code; {@code HuffmanTest} checks the result against
 * codes printed in the RFC (EOS must come out as thirty 1-bits).
 *
 * <p>Decoding walks a tree of 256-way tables, eight input bits per step: a table slot holds
 * either a symbol (with how many of those eight bits its code's tail used) or the next table.
 * Worked example: "no-cache" arrives as a8 eb 10 64 9c bf. The first step indexes the root
 * with 0xa8 = 10101000; 'n' is 101010 (6 bits), so the slot says "n, 6 bits"; two bits are
 * left over and join the next byte for the next step.
 *
 * <p>Immutable tables, shared by all threads.
 */
final class Huffman {
    static final int EOS = 256;

    private static final byte[] LENGTHS = {
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0-15
        28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 16-31
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,         // ' '-'/'
        5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,              // '0'-'?'
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,                // '@'-'O'
        7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,             // 'P'-'_'
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,                // '`'-'o'
        6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,            // 'p'-127
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 128-143
        24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 144-159
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 160-175
        21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 176-191
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 192-207
        19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 208-223
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 224-239
        26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 240-255
        30                                                              // EOS
    };

    static final int[] CODES = canonicalCodes();

    /** Per octet, its code shifted left by 8 and its length in the low 8 bits: one load per octet. */
    private static final long[] CODES_AND_LENGTHS = codesAndLengths();

    private static final VarHandle INT_BIG_ENDIAN = MethodHandles.byteArrayViewVarHandle(int[].class,
            ByteOrder.BIG_ENDIAN);

    private static final Node ROOT = buildTree();

    private Huffman() {
    }

    static int length(int symbol) {
        return LENGTHS[symbol];
    }

    private static int[] canonicalCodes() {
        int[] codes = new int[LENGTHS.length];
        int code = 0;
        int previousLength = 0;
        for (int length = 1; length <= 30; length++) {
            for (int symbol = 0; symbol < LENGTHS.length; symbol++) {
                if (LENGTHS[symbol] == length) {
                    code <<= (length - previousLength);
                    previousLength = length;
                    codes[symbol] = code++;
                }
            }
        }
        return codes;
    }

    private static long[] codesAndLengths() {
        long[] table = new long[256];
        for (int symbol = 0; symbol < 256; symbol++) {
            table[symbol] = (long) CODES[symbol] << 8 | LENGTHS[symbol];
        }
        return table;
    }

    /** Octets needed to Huffman-code {@code text} (chars are octets, ISO-8859-1). */
    static int encodedLength(String text) {
        long bits = 0;
        for (int i = 0; i < text.length(); i++) {
            bits += LENGTHS[text.charAt(i) & 0xff];
        }
        return (int) ((bits + 7) >>> 3);
    }

    /**
     * Writes the code of {@code text} at {@code out[at]} and returns the index after it; the
     * last octet is padded with the high bits of EOS (1s). {@code out} must have room for
     * {@link #encodedLength} octets.
     */
    static int encode(String text, byte[] out, int at) {
        return encode(text, out, at, Integer.MAX_VALUE);
    }

    /**
     * Like {@link #encode(String, byte[], int)}, but gives up and returns -1 as soon as the code
     * is longer than {@code maxOctets}, having written up to 3 octets past that: the caller
     * learns whether the code is short enough in the same pass that writes it. {@code out} must
     * have room for {@code maxOctets + 3} octets.
     *
     * <p>Codes collect in a long and leave four octets at a time: a code is at most 30 bits, so
     * fewer than 32 pending bits plus one more code always fit in 64.
     */
    static int encode(String text, byte[] out, int at, int maxOctets) {
        int limit = maxOctets == Integer.MAX_VALUE ? Integer.MAX_VALUE : at + maxOctets;
        long bits = 0;
        int count = 0;
        for (int i = 0; i < text.length(); i++) {
            long code = CODES_AND_LENGTHS[text.charAt(i) & 0xff];
            int length = (int) code & 0xff;
            bits = (bits << length) | (code >>> 8);
            count += length;
            if (count >= 32) {
                count -= 32;
                INT_BIG_ENDIAN.set(out, at, (int) (bits >>> count));
                at += 4;
                if (at > limit) {
                    return -1;
                }
            }
        }
        while (count >= 8) {
            count -= 8;
            out[at++] = (byte) (bits >>> count);
        }
        if (count > 0) {
            out[at++] = (byte) ((bits << (8 - count)) | (0xff >>> count));
        }
        return at > limit ? -1 : at;
    }

    /**
     * Decodes {@code length} octets of {@code in} into {@code scratch} (which must hold at least
     * length * 8 / 5 octets) and returns the number of octets decoded.
     */
    static int decode(ByteBuffer in, int length, byte[] scratch) throws HpackException {
        Node node = ROOT;
        int bits = 0;
        int count = 0;
        int written = 0;
        for (int i = 0; i < length; i++) {
            bits = (bits << 8) | (in.get() & 0xff);
            count += 8;
            while (count >= 8) {
                node = node.children[(bits >>> (count - 8)) & 0xff];
                if (node.symbol >= 0) {
                    scratch[written++] = checkedSymbol(node);
                    count -= node.bits;
                    node = ROOT;
                } else {
                    count -= 8;
                }
            }
        }
        return finish(node, bits, count, scratch, written);
    }

    /** Decodes the codes that end inside the last partial octet, then checks the padding. */
    private static int finish(Node node, int bits, int count, byte[] scratch, int written) throws HpackException {
        while (count > 0) {
            Node next = node.children[(bits << (8 - count)) & 0xff];
            if (next.symbol < 0 || next.bits > count) {
                break;
            }
            scratch[written++] = checkedSymbol(next);
            count -= next.bits;
            node = ROOT;
        }
        // RFC 7541 §5.2: padding longer than 7 bits, or not a prefix of EOS (all 1s), is an error.
        if (node != ROOT) {
            throw new HpackException("huffman_padding_too_long");
        }
        int mask = (1 << count) - 1;
        if ((bits & mask) != mask) {
            throw new HpackException("huffman_bad_padding");
        }
        return written;
    }

    private static byte checkedSymbol(Node node) throws HpackException {
        // RFC 7541 §5.2: a string that contains the EOS symbol is a decoding error.
        if (node.symbol == EOS) {
            throw new HpackException("huffman_eos_in_string");
        }
        return (byte) node.symbol;
    }

    private static Node buildTree() {
        Node root = new Node();
        for (int symbol = 0; symbol < LENGTHS.length; symbol++) {
            insert(root, symbol, CODES[symbol], LENGTHS[symbol]);
        }
        return root;
    }

    private static void insert(Node root, int symbol, int code, int length) {
        Node node = root;
        while (length > 8) {
            length -= 8;
            int slot = (code >>> length) & 0xff;
            if (node.children[slot] == null) {
                node.children[slot] = new Node();
            }
            node = node.children[slot];
        }
        Node leaf = new Node(symbol, length);
        int shift = 8 - length;
        int first = (code << shift) & 0xff;
        for (int slot = first; slot < first + (1 << shift); slot++) {
            node.children[slot] = leaf;
        }
    }

    /** An inner node (symbol -1, 256 children) or a leaf (a symbol and its tail length in bits). */
    private static final class Node {
        final Node[] children;
        final int symbol;
        final int bits;

        Node() {
            this.children = new Node[256];
            this.symbol = -1;
            this.bits = 0;
        }

        Node(int symbol, int bits) {
            this.children = null;
            this.symbol = symbol;
            this.bits = bits;
        }
    }
}
