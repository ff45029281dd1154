package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tombstone collection: deletes tombstones older than the grace period from the local store, and
 * expired records whose expiry is older than the grace period.
 *
 * <p>An expired record is collected like a tombstone, because it does a tombstone's job: it is the
 * newest version of its key and keeps older values from coming back. Its grace period runs from
 * its expiry, not from its write (until the expiry it is a live value, and a value is never
 * collected), so it too outlives every way a stale copy can return.
 *
 * <p>A tombstone is what keeps a replica that missed a delete from bringing the old value back
 * (through repair, hints or anti-entropy), so it must outlive every way a stale copy can return:
 * the grace period must exceed the anti-entropy interval and the hints' maximum age (the command
 * line refuses anything else), and a node that was away longer than the grace period must be
 * wiped before it rejoins. Anti-entropy does not send a tombstone older than the grace period to
 * a peer that lacks the key (the peer most likely collected it); values of any age it sends.
 *
 * <p>A tombstone's age is measured against the time the cluster agrees on, not this node's wall
 * clock alone ({@link ClockSkew#agreedEarliestMillis}: the wall clock less the clock bound, while
 * a majority of the cluster agrees with it). A node whose clock runs ahead would otherwise collect
 * tombstones early, while peers that missed the delete may still send it the old value; so while
 * its clock is refused (ahead, behind, or not confirmed by a majority), a node collects nothing
 * and counts the sweeps it skipped.
 *
 * <p>A sweep scans the store once (tombstones are records like any other) and purges each
 * tombstone or expired record past its grace only if it is still the stored record ({@link StorageEngine#purge}), so a
 * write that lands meanwhile is never lost. The scan is not throttled beyond one sweep per tenth
 * of the grace period (at most one an hour).
 *
 * <p>Threading: sweeps run on one daemon thread ({@code ringkv-tombstones}), or on a test's
 * thread that calls {@link #sweep} without {@link #start}, never both; the counters and
 * {@link #mayBeCollectedElsewhere} from any thread.
 */
public final class TombstoneCollector implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TombstoneCollector.class);
    /** Sweeps per grace period, at most one an hour: a tombstone outlives its grace by a tenth at most. */
    private static final int SWEEPS_PER_GRACE = 10;
    private static final Duration SWEEP_EVERY_MAX = Duration.ofHours(1);

    private final StorageEngine engine;
    private final Duration grace;
    private final LongSupplier wallMillis;
    private final Supplier<OptionalLong> agreedMillis;
    private final ScheduledExecutorService thread;
    private final AtomicLong collected = new AtomicLong();
    private final AtomicLong alsoCollected = new AtomicLong();
    /** Other state kept until the grace period ends, swept with the records; set before {@link #start}. */
    private volatile AlsoCollected also;
    private final AtomicLong sweepsDone = new AtomicLong();
    private final AtomicLong sweepsSkipped = new AtomicLong();
    /** The last sweep was skipped: log the pause and the resumption once each (sweeping thread only). */
    private boolean paused;

    /**
     * @param wallMillis   this node's wall clock: the guess at peers' clocks for {@link #mayBeCollectedElsewhere}
     * @param agreedMillis the time tombstones' ages are measured against, empty while this node cannot
     *                     tell it ({@link ClockSkew#agreedEarliestMillis})
     */
    public TombstoneCollector(StorageEngine engine, Duration grace, LongSupplier wallMillis, Supplier<OptionalLong> agreedMillis) {
        if (grace.isNegative() || grace.isZero()) {
            throw new IllegalArgumentException("the tombstone grace period must be positive, got " + grace);
        }
        this.engine = engine;
        this.grace = grace;
        this.wallMillis = wallMillis;
        this.agreedMillis = agreedMillis;
        this.thread = DaemonScheduler.named("ringkv-tombstones");
    }

    /**
     * State beside the records whose life ends with the grace period too (each key's Paxos state,
     * {@link PaxosAcceptor}): swept after the records, with the same horizon.
     */
    interface AlsoCollected {
        /** Removes what was last touched before {@code horizonMillis}; @return how many entries went */
        int purgeDeadBefore(long horizonMillis) throws StoreException;
    }

    /** Sweeps {@code state} too, from the next sweep on. */
    TombstoneCollector alsoCollect(AlsoCollected state) {
        this.also = state;
        return this;
    }

    public TombstoneCollector start() {
        long every = Math.max(1, Math.min(grace.toMillis() / SWEEPS_PER_GRACE, SWEEP_EVERY_MAX.toMillis()));
        thread.scheduleWithFixedDelay(this::sweepLogged, every, every, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Whether this is a tombstone, or an expired record, that peers may have collected already:
     * dead (deleted, or expired) for longer than the grace period by this node's wall clock, the
     * best guess at theirs. Anti-entropy withholds such a record from a peer that lacks its key
     * ({@link AntiEntropy}); a value that never expires is never withheld.
     * A wrong clock here costs nothing but a resend: withholding a tombstone from a peer that lacks
     * the key is safe (AntiEntropy#withheld), and a tombstone sent to a peer that had collected it
     * is collected there again.
     */
    public boolean mayBeCollectedElsewhere(Record record) {
        return deadBefore(record, wallMillis.getAsLong() - grace.toMillis());
    }

    /**
     * Whether the record was dead before {@code horizonMillis}: a tombstone written before it, or an
     * expiring record whose expiry came before it. A value without an expiry is never dead.
     */
    private static boolean deadBefore(Record record, long horizonMillis) {
        if (record.tombstone()) {
            return HybridLogicalClock.millisOf(record.timestamp()) < horizonMillis;
        }
        return record.expires() && record.expiresAtMillis() < horizonMillis;
    }

    public Duration grace() {
        return grace;
    }

    /** Tombstones and expired records purged since start. */
    public long collected() {
        return collected.get();
    }

    /** Entries of {@link #alsoCollect other state} (Paxos states) purged since start. */
    public long alsoCollected() {
        return alsoCollected.get();
    }

    /** Sweeps that ran since start. */
    public long sweepsDone() {
        return sweepsDone.get();
    }

    /** Sweeps skipped since start because this node could not tell the time (its clock refused). */
    public long sweepsSkipped() {
        return sweepsSkipped.get();
    }

    private void sweepLogged() {
        try {
            int purged = sweep();
            if (purged > 0) {
                LOG.info("collected {} tombstones and expired records dead for longer than {}", purged, grace);
            }
        } catch (StoreException | RuntimeException e) {
            LOG.warn("tombstone collection failed; next sweep in {}", grace.dividedBy(SWEEPS_PER_GRACE), e);
        }
    }

    /** One sweep, or none while this node cannot tell the time: @return tombstones and expired records purged */
    int sweep() throws StoreException {
        OptionalLong now = agreedMillis.get();
        if (now.isEmpty()) {
            sweepsSkipped.incrementAndGet();
            if (!paused) {
                paused = true;
                LOG.warn("tombstone collection paused: this node's clock is off or not confirmed by its peers (see /v0/status), "
                        + "so it cannot tell which tombstones are older than {}", grace);
            }
            return 0;
        }
        if (paused) {
            paused = false;
            LOG.info("tombstone collection resumed: this node's clock agrees with its peers' again");
        }
        // Taken once: time only moves on during the scan, so this horizon stays on the safe side.
        long horizon = now.getAsLong() - grace.toMillis();
        int purged = 0;
        try (RangeCursor cursor = engine.range(new byte[0], null)) {
            while (cursor.next()) {
                Record record = cursor.record();
                // Purged during the scan (the cursor reads a snapshot), so memory stays flat.
                if (deadBefore(record, horizon) && engine.purge(cursor.key(), record)) {
                    purged++;
                }
            }
        }
        collected.addAndGet(purged);
        AlsoCollected other = also;
        if (other != null) {
            int gone = other.purgeDeadBefore(horizon);
            alsoCollected.addAndGet(gone);
            if (gone > 0) {
                LOG.info("collected {} compare-and-set states last promised more than {} ago", gone, grace);
            }
        }
        sweepsDone.incrementAndGet();
        return purged;
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("tombstone collection still running 5 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
