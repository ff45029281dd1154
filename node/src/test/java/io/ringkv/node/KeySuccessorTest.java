package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeySuccessorTest {
    private static final HexFormat HEX = HexFormat.of();

    private static String after(String hex, int keyBytesMax) {
        return KeySuccessor.after(HEX.parseHex(hex), keyBytesMax).map(HEX::formatHex).orElse("none");
    }

    @Test
    void aKeyShorterThanTheLimitIsFollowedByItselfAndAZeroByte() {
        assertThat(after("6162", 4), is("616200"));
        assertThat(after("ff", 4), is("ff00"));
    }

    @Test
    void aKeyOfTheLongestLengthIsFollowedByItsIncrementWithoutTrailingFfBytes() {
        assertThat(after("61626364", 4), is("61626365"));
        assertThat(after("6162ffff", 4), is("6163"));
        assertThat(after("61fe", 2), is("61ff"));
    }

    @Test
    void nothingFollowsTheLargestKey() {
        assertThat(KeySuccessor.after(HEX.parseHex("ffff"), 2), is(Optional.empty()));
    }
}
