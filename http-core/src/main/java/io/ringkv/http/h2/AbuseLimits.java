package io.ringkv.http.h2;

import java.time.Duration;

/**
 * Caps on peer behaviour that costs us work without doing anything useful; exceeding one
 * closes the connection with GOAWAY(ENHANCE_YOUR_CALM) (RFC 9113 §10.5). Counts are per
 * {@code interval}.
 *
 * @param resetsPerInterval        streams the peer resets (rapid reset, CVE-2023-44487) and, at the
 *                                 server, streams we reset because of the peer's frames
 *                                 ("MadeYouReset", CVE-2025-8671) or because we refused
 *                                 their requests before their bodies ended
 *                                 ({@link Http2Connection#resetRefusedStream}), counted together
 * @param continuationsPerBlock    CONTINUATION frames in one field block (CVE-2024-27316 family)
 * @param headerBlockBytesMax      octets of one encoded field block, all fragments together
 * @param settingsPerInterval      non-ACK SETTINGS frames we must acknowledge
 * @param pingsPerInterval         non-ACK PING frames we must answer
 * @param emptyDataPerInterval     DATA frames with no payload and no END_STREAM
 */
public record AbuseLimits(int resetsPerInterval, int continuationsPerBlock, int headerBlockBytesMax,
                          int settingsPerInterval, int pingsPerInterval, int emptyDataPerInterval,
                          Duration interval) {
    public static AbuseLimits defaults() {
        return new AbuseLimits(200, 32, 256 * 1024, 50, 50, 100, Duration.ofSeconds(1));
    }
}
