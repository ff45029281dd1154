package io.ringkv.http.hpack;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HuffmanTest {

    @Test
    void canonicalCodesMatchCodesPrintedInRfc7541AppendixB() {
        assertCode(0, 0x1ff8, 13);
        assertCode('&', 0xf8, 8);
        assertCode('0', 0x0, 5);
        assertCode('a', 0x3, 5);
        assertCode('\\', 0x7fff0, 19);
        assertCode(128, 0xfffe6, 20);
        assertCode(203, 0x7ffffde, 27);
        assertCode(254, 0x7fffff0, 27);
        assertCode(255, 0x3ffffee, 26);
        assertCode(Huffman.EOS, 0x3fffffff, 30);
    }

    private static void assertCode(int symbol, int code, int length) {
        assertThat("length of " + symbol, Huffman.length(symbol), equalTo(length));
        assertThat("code of " + symbol, Huffman.CODES[symbol], equalTo(code));
    }

    @Test
    void everyOctetValueRoundTrips() throws HpackException {
        StringBuilder all = new StringBuilder();
        for (int c = 0; c < 256; c++) {
            all.append((char) c);
        }
        assertThat(roundTrip(all.toString()), equalTo(all.toString()));
    }

    @Test
    void seededRandomStringsRoundTrip() throws HpackException {
        Random random = new Random(7541);
        for (int i = 0; i < 2_000; i++) {
            char[] text = new char[random.nextInt(40)];
            for (int j = 0; j < text.length; j++) {
                text[j] = (char) (random.nextBoolean() ? 0x20 + random.nextInt(95) : random.nextInt(256));
            }
            assertThat(roundTrip(new String(text)), equalTo(new String(text)));
        }
    }

    private static String roundTrip(String text) throws HpackException {
        byte[] coded = new byte[Huffman.encodedLength(text) + 8];
        int end = Huffman.encode(text, coded, 3);
        assertThat(end - 3, equalTo(Huffman.encodedLength(text)));
        ByteBuffer out = ByteBuffer.wrap(coded, 3, end - 3);
        byte[] scratch = new byte[out.remaining() * 8 / 5 + 1];
        int n = Huffman.decode(out, out.remaining(), scratch);
        return new String(scratch, 0, n, StandardCharsets.ISO_8859_1);
    }
}
