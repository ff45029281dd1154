package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HttpDateTest {
    /** The JDK's formatter for the same form: what the hand-written one must agree with. */
    private static final DateTimeFormatter REFERENCE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final long YEAR_1 = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
    private static final long YEAR_9999_END = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();

    @Test
    void formatsTheRfcsExample() {
        assertThat(HttpDate.formatImfFixdate(Instant.parse("1994-11-06T08:49:37Z").getEpochSecond()),
                is("Sun, 06 Nov 1994 08:49:37 GMT"));
    }

    /** Every weekday, month, leap day and edge of a day, and instants before 1970, as the JDK writes them. */
    @Test
    void agreesWithTheJdksFormatterOverFourDigitYears() {
        long[] edges = {0, -1, 86_399, 86_400, YEAR_1, YEAR_9999_END,
                Instant.parse("2000-02-29T23:59:59Z").getEpochSecond(), Instant.parse("1900-03-01T00:00:00Z").getEpochSecond(),
                Instant.parse("2026-12-31T12:00:00Z").getEpochSecond()};
        for (long second : edges) {
            assertThat(HttpDate.formatImfFixdate(second), is(REFERENCE.format(Instant.ofEpochSecond(second))));
        }
        SplittableRandom random = new SplittableRandom(20261129);
        for (int i = 0; i < 200_000; i++) {
            long second = random.nextLong(YEAR_1, YEAR_9999_END + 1);
            assertThat(HttpDate.formatImfFixdate(second), is(REFERENCE.format(Instant.ofEpochSecond(second))));
        }
    }

    @Test
    void whatItWritesParsesBackToTheSameSecond() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long second = random.nextLong(YEAR_1, YEAR_9999_END + 1);
            assertThat(HttpDate.parseEpochSeconds("Last-Modified", HttpDate.formatImfFixdate(second)), is(second));
        }
    }

    @Test
    void aYearThatNeedsMoreThanFourDigitsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> HttpDate.formatImfFixdate(YEAR_9999_END + 1));
        assertThrows(IllegalArgumentException.class, () -> HttpDate.formatImfFixdate(YEAR_1 - 1));
    }
}
