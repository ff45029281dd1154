package io.ringkv.cluster;

import java.time.Duration;

/**
 * Pace and bounds of anti-entropy ({@link AntiEntropy}).
 *
 * @param interval          time between the end of one round and the start of the next
 * @param scanRatePerSecond records per second the comparing node reads from its own store while
 *                          it compares, so a round never takes the disk from foreground requests
 * @param bucketsPerRequest differing buckets compared per request to a peer: bounds the memory a
 *                          comparison holds (about 1/16 of a node's keys at most with 64 of 1024)
 */
public record AntiEntropySettings(Duration interval, int scanRatePerSecond, int bucketsPerRequest) {

    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(10);
    public static final int DEFAULT_SCAN_RATE = 200_000;
    public static final int DEFAULT_BUCKETS_PER_REQUEST = 64;

    public AntiEntropySettings {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the anti-entropy interval must be positive, got " + interval);
        }
        if (scanRatePerSecond < 1 || bucketsPerRequest < 1 || bucketsPerRequest > DigestBuckets.BUCKETS) {
            throw new IllegalArgumentException("anti-entropy scan rate and buckets per request out of range: "
                    + scanRatePerSecond + ", " + bucketsPerRequest);
        }
    }

    public static AntiEntropySettings defaults() {
        return new AntiEntropySettings(DEFAULT_INTERVAL, DEFAULT_SCAN_RATE, DEFAULT_BUCKETS_PER_REQUEST);
    }

    public AntiEntropySettings withInterval(Duration every) {
        return new AntiEntropySettings(every, scanRatePerSecond, bucketsPerRequest);
    }

    public AntiEntropySettings withScanRate(int recordsPerSecond) {
        return new AntiEntropySettings(interval, recordsPerSecond, bucketsPerRequest);
    }
}
