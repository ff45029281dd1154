package io.ringkv.cluster;

import java.time.Duration;

/**
 * Bounds and pace of hinted handoff ({@link HintedHandoff}).
 *
 * @param maxPerTarget         hints kept per target replica; writes it misses beyond that are not
 *                             hinted and are left to anti-entropy (counted and logged)
 * @param maxBytesPerTarget    key and value bytes of the hints kept per target replica ({@link
 *                             io.ringkv.store.Hint#sizeBytes}); a miss that would pass it is not hinted,
 *                             as for {@code maxPerTarget}, so large values cannot fill the disk
 * @param maxAge               a hint older than this is dropped instead of replayed: its target was
 *                             away too long, and anti-entropy is the way back
 * @param replayRatePerSecond  records replayed per second, all targets together, so a returning
 *                             node is not flooded
 * @param batchRecordsMax      records per replay request (whose body is bounded in bytes too:
 *                             {@link ReplicaClient#batchBodyBytesMax})
 * @param interval             time between replay rounds; also how often a target that is still
 *                             down is tried again
 */
public record HintSettings(long maxPerTarget, long maxBytesPerTarget, Duration maxAge, int replayRatePerSecond,
                           int batchRecordsMax, Duration interval) {

    public static final long DEFAULT_MAX_PER_TARGET = 500_000;
    /** 1 GiB: 64 values at the default 16 MiB body limit, or the count bound's worth of 2 KiB values. */
    public static final long DEFAULT_MAX_BYTES_PER_TARGET = 1L << 30;
    public static final Duration DEFAULT_MAX_AGE = Duration.ofHours(3);
    public static final int DEFAULT_REPLAY_RATE = 10_000;
    public static final int DEFAULT_BATCH_RECORDS = 256;
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    public HintSettings {
        if (maxPerTarget < 0 || maxBytesPerTarget < 0 || replayRatePerSecond < 1 || batchRecordsMax < 1) {
            throw new IllegalArgumentException("hint bounds must be positive (max per target may be 0: no hints), got "
                    + maxPerTarget + ", " + maxBytesPerTarget + " bytes, " + replayRatePerSecond + "/s, " + batchRecordsMax);
        }
        if (maxAge.isNegative() || maxAge.isZero() || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("hint age and replay interval must be positive, got " + maxAge + ", " + interval);
        }
    }

    public static HintSettings defaults() {
        return new HintSettings(DEFAULT_MAX_PER_TARGET, DEFAULT_MAX_BYTES_PER_TARGET, DEFAULT_MAX_AGE, DEFAULT_REPLAY_RATE,
                DEFAULT_BATCH_RECORDS, DEFAULT_INTERVAL);
    }

    public HintSettings withMaxPerTarget(long max) {
        return new HintSettings(max, maxBytesPerTarget, maxAge, replayRatePerSecond, batchRecordsMax, interval);
    }

    public HintSettings withMaxBytesPerTarget(long bytes) {
        return new HintSettings(maxPerTarget, bytes, maxAge, replayRatePerSecond, batchRecordsMax, interval);
    }

    public HintSettings withMaxAge(Duration age) {
        return new HintSettings(maxPerTarget, maxBytesPerTarget, age, replayRatePerSecond, batchRecordsMax, interval);
    }

    public HintSettings withReplayRate(int perSecond) {
        return new HintSettings(maxPerTarget, maxBytesPerTarget, maxAge, perSecond, batchRecordsMax, interval);
    }

    public HintSettings withInterval(Duration every) {
        return new HintSettings(maxPerTarget, maxBytesPerTarget, maxAge, replayRatePerSecond, batchRecordsMax, every);
    }
}
