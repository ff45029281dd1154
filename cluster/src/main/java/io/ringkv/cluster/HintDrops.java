package io.ringkv.cluster;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hints dropped, and missed writes not hinted, by {@link Reason}: counted for the metrics, and
 * logged at most once a minute per target and reason, so a target that stays away, or refuses a
 * run of records, cannot flood the log.
 *
 * <p>Threading: thread-safe; the counts are atomic, and a warning's time per target and reason is
 * claimed by compare-and-set.
 */
public final class HintDrops {

    /** Under the handoff's name: these lines are about its hints, and operators filter logs by it. */
    private static final Logger LOG = LoggerFactory.getLogger(HintedHandoff.class);
    private static final long WARN_EVERY_MILLIS = 60_000;

    /** Why a hint was dropped, or a miss not hinted. */
    public enum Reason {
        /** The target had {@link HintSettings#maxPerTarget()} hints already. */
        COUNT_BOUND,
        /** The hint would have taken its target's hints past {@link HintSettings#maxBytesPerTarget()}. */
        BYTE_BOUND,
        /** Older than {@link HintSettings#maxAge()} when its turn came. */
        AGE,
        /** The target answered and refused the record, sent alone. */
        REFUSED,
        /** The hint could not be stored. */
        STORAGE_ERROR,
        /**
         * When its turn came the target no longer owned the key, now or after the change in
         * progress (a join or leave completed, the factor went down): its copy would stay beside
         * the owners' until a cleanup. The write reached a quorum of the owners to be when it was
         * acknowledged (pending replicas count), so they hold it.
         */
        NOT_OWNER;

        /** The name in metrics: lower case, words joined by {@code _}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final LongSupplier wallMillis;
    private final AtomicLongArray counts = new AtomicLongArray(Reason.values().length);
    private final Map<String, AtomicLong> lastWarnMillis = new ConcurrentHashMap<>();

    /** @param wallMillis the clock of the once-a-minute warnings */
    HintDrops(LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
    }

    /** Counts {@code hints} dropped for {@code reason} and logs {@code message} unless it was logged for that target and reason within a minute. */
    void count(Reason reason, int hints, String target, String message, Object... args) {
        counts.addAndGet(reason.ordinal(), hints);
        long now = wallMillis.getAsLong();
        AtomicLong last = lastWarnMillis.computeIfAbsent(target + " " + reason, subject -> new AtomicLong(Long.MIN_VALUE / 2));
        long previous = last.get();
        if (now - previous >= WARN_EVERY_MILLIS && last.compareAndSet(previous, now)) {
            LOG.warn(message, args);
        }
    }

    /** Dropped since start, all reasons together. */
    public long total() {
        long total = 0;
        for (int i = 0; i < counts.length(); i++) {
            total += counts.get(i);
        }
        return total;
    }

    /** Dropped since start by reason, every reason present. */
    public Map<Reason, Long> byReason() {
        Map<Reason, Long> byReason = new EnumMap<>(Reason.class);
        for (Reason reason : Reason.values()) {
            byReason.put(reason, counts.get(reason.ordinal()));
        }
        return byReason;
    }
}
