package io.ringkv.cluster;

import java.time.Duration;

/**
 * Pace and bounds of anti-entropy ({@link AntiEntropy}).
 *
 * @param interval          time between the end of one round and the start of the next
 * @param scanRatePerSecond records per second the comparing node reads from its own store while
 *                          it compares, so a round never takes the disk from foreground requests
 */
public record AntiEntropySettings(Duration interval, int scanRatePerSecond) {

    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(10);
    public static final int DEFAULT_SCAN_RATE = 200_000;

    public AntiEntropySettings {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the anti-entropy interval must be positive, got " + interval);
        }
        if (scanRatePerSecond < 1) {
            throw new IllegalArgumentException("the anti-entropy scan rate must be positive, got " + scanRatePerSecond);
        }
    }

    public static AntiEntropySettings defaults() {
        return new AntiEntropySettings(DEFAULT_INTERVAL, DEFAULT_SCAN_RATE);
    }

    public AntiEntropySettings withInterval(Duration every) {
        return new AntiEntropySettings(every, scanRatePerSecond);
    }

    public AntiEntropySettings withScanRate(int recordsPerSecond) {
        return new AntiEntropySettings(interval, recordsPerSecond);
    }
}
