package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;

/**
 * A write's time to live, the public API's {@code ttl=SECONDS}: whole seconds from
 * 1 to {@link #SECONDS_MAX}. The coordinator turns it into the record's expiry when it stamps the
 * write ({@link #expiresAtMillis}), so every replica stores the same instant and none computes its
 * own.
 *
 * @param seconds how long the value stays readable after its write
 */
public record Ttl(long seconds) {

    /**
     * Ten years of 365 days. Long enough for anything a cache or a session needs; short enough that
     * an expiry is far inside what a timestamp's millis can carry, whatever the clock reads.
     */
    public static final long SECONDS_MAX = 10L * 365 * 24 * 60 * 60;
    private static final int DIGITS_MAX = Long.toString(SECONDS_MAX).length();

    public Ttl {
        if (seconds < 1 || seconds > SECONDS_MAX) {
            throw new IllegalArgumentException(rangeMessage("ttl=" + seconds));
        }
    }

    /**
     * Parses the query parameter's decoded value: ASCII digits only (no sign, no spaces, no unit).
     *
     * @throws IllegalArgumentException with a message fit for a {@code 400} body
     */
    public static Ttl parse(String param) {
        if (param.isEmpty() || param.length() > DIGITS_MAX) {
            throw new IllegalArgumentException(rangeMessage("ttl=" + param));
        }
        long seconds = 0;
        for (int i = 0; i < param.length(); i++) {
            char c = param.charAt(i);
            if (c < '0' || c > '9') {
                throw new IllegalArgumentException(rangeMessage("ttl=" + param));
            }
            seconds = seconds * 10 + (c - '0');
        }
        if (seconds < 1 || seconds > SECONDS_MAX) {
            throw new IllegalArgumentException(rangeMessage("ttl=" + param));
        }
        return new Ttl(seconds);
    }

    /**
     * The expiry of a write stamped {@code timestamp}: the millis the timestamp carries plus this
     * time to live. Counted from the stamp, not from any replica's clock, so that one write has one
     * expiry everywhere.
     */
    public long expiresAtMillis(long timestamp) {
        return HybridLogicalClock.millisOf(timestamp) + seconds * 1000;
    }

    private static String rangeMessage(String given) {
        return given + " is not a time to live: give whole seconds from 1 to " + SECONDS_MAX + " (10 years)";
    }
}
