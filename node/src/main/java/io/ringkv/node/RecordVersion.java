package io.ringkv.node;

import io.ringkv.store.HybridLogicalClock;

/**
 * What a read tells of the version it returns (RFC 9110 §8.8): a strong entity tag and a
 * modification date, both from the record's HLC timestamp.
 *
 * <p>The tag is the timestamp in hex, quoted ({@code "18c5f2a3b4c50012"}). It is a strong
 * validator because a timestamp names one write: the coordinator stamps each write once, no two
 * writes get the same stamp (the low bits hold the issuing node), and every replica keeps the
 * bytes it was sent. Every coordinator therefore gives the same tag for the same version, and
 * writing the same bytes again makes a new one.
 *
 * <p>{@code Last-Modified} is the timestamp's physical milliseconds, in whole seconds, as an
 * IMF-fixdate (§5.6.7), but never later than the time of the answer (§8.8.2.1): an HLC may run
 * ahead of this node's wall clock after it observed a faster peer. Its one-second resolution
 * cannot tell two writes within a second apart; the tag can, so conditional reads use the tag.
 */
record RecordVersion(long timestamp) {
    String entityTag() {
        return "\"" + Long.toHexString(timestamp) + "\"";
    }

    /** @param nowMillis this node's wall clock when the answer is made, ms since the epoch */
    String lastModified(long nowMillis) {
        // Not before 1970 either, which no record's stamp is: the form has room for years 1 to 9999 only.
        long millis = Math.max(0, Math.min(HybridLogicalClock.millisOf(timestamp), nowMillis));
        return HttpDate.formatImfFixdate(Math.floorDiv(millis, 1000));
    }
}
