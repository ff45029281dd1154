package io.ringkv.http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.sameInstance;

import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void printableAsciiIsKeptAsItIs() {
        String plain = "/v0/entity?id=user-42&x=\"a b\"~";
        assertThat(LogText.escape(plain), sameInstance(plain));
    }

    @Test
    void lineBreaksAndNulCannotForgeALine() {
        assertThat(LogText.escape("/v0/entity?id=a\r\nX: y\u0000"), equalTo("/v0/entity?id=a\\x0d\\x0aX: y\\x00"));
    }

    @Test
    void terminalControlsAndObsTextAreEscaped() {
        // ESC [ 3 1 m (ANSI colour), DEL, and the C1 controls NEL and CSI that obs-text bytes decode to.
        assertThat(LogText.escape("\u001b[31mred\u007f\u0085\u009b"), equalTo("\\x1b[31mred\\x7f\\x85\\x9b"));
        assertThat(LogText.escape("caf\u00e9 \u202e"), equalTo("caf\\xe9 \\u202e"));
    }

    @Test
    void aBackslashIsDoubledSoEveryEscapeInTheOutputWasMadeHere() {
        assertThat(LogText.escape("a\\x0d"), equalTo("a\\\\x0d"));
    }

    @Test
    void longTextIsCutWithACountOfWhatWasLeftOut() {
        String escaped = LogText.escape("a".repeat(LogText.MAX_CHARS + 1000));
        assertThat(escaped, equalTo("a".repeat(LogText.MAX_CHARS) + "...[1000 more chars]"));
        assertThat(LogText.escape("\n".repeat(LogText.MAX_CHARS + 1)),
                equalTo("\\x0a".repeat(LogText.MAX_CHARS) + "...[1 more chars]"));
    }

    @Test
    void nullAndNonStringsAreTheirStringForm() {
        assertThat(LogText.escape(null), equalTo("null"));
        assertThat(LogText.escape(new StringBuilder("a\tb")), equalTo("a\\x09b"));
    }

    @Test
    void theLazyFormEscapesWhenPrinted() {
        StringBuilder value = new StringBuilder("x");
        Object lazy = LogText.of(value);
        value.append("\n");
        assertThat(lazy.toString(), equalTo("x\\x0a"));
    }
}
