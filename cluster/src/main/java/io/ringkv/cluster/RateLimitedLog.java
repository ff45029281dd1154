package io.ringkv.cluster;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Says whether a log line about a given subject (a peer) may be written now: at most one per
 * subject per period, so a peer that repeats a bad request cannot flood the log.
 *
 * <p>Threading: thread-safe; the subjects kept are bounded by {@link #SUBJECTS_MAX} (beyond it the
 * oldest entries are forgotten, which only allows an early line).
 */
final class RateLimitedLog {
    static final int SUBJECTS_MAX = 10_000;

    private final long periodMillis;
    private final LongSupplier clock;
    private final Map<String, AtomicLong> lastMillis = new ConcurrentHashMap<>();

    RateLimitedLog(long periodMillis) {
        this(periodMillis, System::currentTimeMillis);
    }

    RateLimitedLog(long periodMillis, LongSupplier clock) {
        this.periodMillis = periodMillis;
        this.clock = clock;
    }

    boolean allow(String subject) {
        if (lastMillis.size() >= SUBJECTS_MAX) {
            lastMillis.clear();
        }
        long now = clock.getAsLong();
        AtomicLong last = lastMillis.computeIfAbsent(subject, s -> new AtomicLong(Long.MIN_VALUE / 2));
        long previous = last.get();
        return now - previous >= periodMillis && last.compareAndSet(previous, now);
    }
}
