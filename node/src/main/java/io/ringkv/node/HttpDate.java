package io.ringkv.node;

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
 * ({@code Sun Nov  6 08:49:37 1994}). Stateless.
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

    private static DateTimeFormatter strict(String pattern) {
        return DateTimeFormatter.ofPattern(pattern, Locale.ROOT).withResolverStyle(ResolverStyle.STRICT);
    }
}
