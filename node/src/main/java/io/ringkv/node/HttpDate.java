package io.ringkv.node;

import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.Locale;

/**
 * An HTTP-date (RFC 9110 §5.6.7): the IMF-fixdate senders use ({@code Sun, 06 Nov 1994 08:49:37 GMT})
 * and the two obsolete forms recipients must also take, RFC 850 ({@code Sunday, 06-Nov-94 08:49:37 GMT},
 * a two-digit year read as the nearest past or next-50-years year) and asctime
 * ({@code Sun Nov  6 08:49:37 1994}); written always as an IMF-fixdate. Stateless.
 */
final class HttpDate {
    private static final DateTimeFormatter IMF_FIXDATE = strict("EEE, dd MMM uuuu HH:mm:ss 'GMT'");
    private static final DateTimeFormatter RFC_850 = strict("EEEE, dd-MMM-uu HH:mm:ss 'GMT'");
    private static final DateTimeFormatter ASCTIME = strict("EEE MMM ppd HH:mm:ss uuuu");

    private HttpDate() {
    }

    /**
     * Epoch seconds of the date.
     *
     * @param field the field's name, for the message
     * @throws IllegalArgumentException when it is none of the three forms (the 400's message)
     */
    static long parseEpochSeconds(String field, String text) {
        String value = text.strip();
        for (DateTimeFormatter format : new DateTimeFormatter[] {IMF_FIXDATE, RFC_850, ASCTIME}) {
            try {
                return LocalDateTime.parse(value, format).toEpochSecond(ZoneOffset.UTC);
            } catch (DateTimeParseException tryNext) {
                // the next form, or malformed below
            }
        }
        throw new IllegalArgumentException(field + " is not an HTTP-date (e.g. Sun, 06 Nov 1994 08:49:37 GMT): "
                + (value.length() > 64 ? value.substring(0, 64) + "..." : value));
    }

    /**
     * The IMF-fixdate of an instant, to the second ({@code Sun, 06 Nov 1994 08:49:37 GMT}): what a
     * {@code Last-Modified} field says on every read that finds a record. Written out by hand
     * rather than through {@code DateTimeFormatter}, whose general machinery (a field lookup on a
     * temporal per pattern letter, a string builder per call) would run on each of those reads.
     *
     * @param epochSecond seconds since 1970-01-01T00:00:00Z, of a year from 1 to 9999 (the form has
     *                    four digits for the year)
     */
    static String formatImfFixdate(long epochSecond) {
        long days = Math.floorDiv(epochSecond, 86_400);
        int secondOfDay = (int) Math.floorMod(epochSecond, 86_400);
        LocalDate date = LocalDate.ofEpochDay(days);
        int year = date.getYear();
        if (year < 1 || year > 9999) {
            throw new IllegalArgumentException("an IMF-fixdate has a four-digit year, not " + year);
        }
        byte[] out = new byte[29];
        // 1970-01-01 was a Thursday, the fourth of WEEKDAYS.
        System.arraycopy(WEEKDAYS, (int) Math.floorMod(days + 3, 7) * 3, out, 0, 3);
        out[3] = ',';
        out[4] = ' ';
        twoDigits(out, 5, date.getDayOfMonth());
        out[7] = ' ';
        System.arraycopy(MONTHS, (date.getMonthValue() - 1) * 3, out, 8, 3);
        out[11] = ' ';
        twoDigits(out, 12, year / 100);
        twoDigits(out, 14, year % 100);
        out[16] = ' ';
        twoDigits(out, 17, secondOfDay / 3600);
        out[19] = ':';
        twoDigits(out, 20, secondOfDay / 60 % 60);
        out[22] = ':';
        twoDigits(out, 23, secondOfDay % 60);
        out[25] = ' ';
        out[26] = 'G';
        out[27] = 'M';
        out[28] = 'T';
        return new String(out, StandardCharsets.US_ASCII);
    }

    private static final byte[] WEEKDAYS = "MonTueWedThuFriSatSun".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec".getBytes(StandardCharsets.US_ASCII);

    private static void twoDigits(byte[] out, int at, int value) {
        out[at] = (byte) ('0' + value / 10);
        out[at + 1] = (byte) ('0' + value % 10);
    }

    private static DateTimeFormatter strict(String pattern) {
        return DateTimeFormatter.ofPattern(pattern, Locale.ROOT).withResolverStyle(ResolverStyle.STRICT);
    }
}
