package io.ringkv.node.access;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Which keys and ranges a prefix covers, with bytes compared unsigned as the store orders keys. */
class KeyPrefixTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theEndIsTheFirstKeyAfterThePrefixedOnes() {
        assertThat(KeyPrefix.parse("tenant-a/").encodedEnd(), is("tenant-a0"));
        assertThat(KeyPrefix.parse("a%FF%FF").encodedEnd(), is("b"));
        assertThat(KeyPrefix.parse("%7F").encodedEnd(), is("%80"));
        assertThat(KeyPrefix.parse("%FF").end(), nullValue());
    }

    @Test
    void keysAreCoveredByTheirStart() {
        KeyPrefix prefix = KeyPrefix.parse("t/");
        assertThat(prefix.covers(bytes("t/")), is(true));
        assertThat(prefix.covers(bytes("t/x")), is(true));
        assertThat(prefix.covers(bytes("t")), is(false));
        assertThat(prefix.covers(bytes("u/x")), is(false));
    }

    @Test
    void aRangeIsCoveredWhenItStaysWithinThePrefix() {
        KeyPrefix prefix = KeyPrefix.parse("t/");
        assertThat(prefix.coversRange(bytes("t/"), bytes("t0")), is(true));
        assertThat(prefix.coversRange(bytes("t/a"), bytes("t/b")), is(true));
        assertThat("past the end", prefix.coversRange(bytes("t/"), bytes("t1")), is(false));
        assertThat("to the last key", prefix.coversRange(bytes("t/"), null), is(false));
        assertThat("starts before", prefix.coversRange(bytes("s"), bytes("t0")), is(false));
        KeyPrefix top = KeyPrefix.parse("%FF");
        assertThat("a prefix with no end covers a range to the last key", top.coversRange(new byte[] {(byte) 0xFF}, null), is(true));
        assertThat("unsigned order", KeyPrefix.parse("%7F").coversRange(new byte[] {0x7F}, new byte[] {(byte) 0x81}), is(false));
    }

    @Test
    void encodingRoundTrips() {
        KeyPrefix prefix = KeyPrefix.parse("a b%2Fc+%FF\u00e9");
        assertThat(prefix.encoded(), is("a%20b/c%2B%FF%C3%A9"));
        assertThat(KeyPrefix.parse(prefix.encoded()), is(prefix));
    }
}
