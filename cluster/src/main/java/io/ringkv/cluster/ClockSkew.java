package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * How far this node's wall clock is from its peers', and whether this node may stamp writes.
 * Two kinds of evidence:
 *
 * <ul>
 *   <li><b>heard</b>: the sending time every authenticated internal request carries
 *       ({@link InternalAuth#TIME_HEADER}). Network delay (or this node having been paused) only
 *       makes a peer look behind, never ahead, so these count only as "that peer is ahead".
 *   <li><b>measured</b>: a round trip to the peer's time endpoint ({@link ClockCheck}), its answer
 *       placed at the middle of the round trip, with half the round trip as the uncertainty. These
 *       tell ahead from behind.
 * </ul>
 *
 * <p>This node refuses to stamp writes ({@link #writeRefusal}) when:
 * <ul>
 *   <li>it is <b>behind</b>: more than half of its peers are ahead of it by more than the bound
 *       (versions it stamped would lose to older writes);
 *   <li>it is <b>ahead</b>: more than half of the peers measured lately are behind it by more than
 *       the bound. Its peers would refuse its timestamps, but its own replica would store them,
 *       and such a record would later win over writes acknowledged after it;
 *   <li>fewer than a majority of the cluster, itself included, are known to agree with its clock:
 *       peers measured or heard from in the last minute within the bound. A node restarted with a
 *       wrong clock, or whose peers are all unreachable, stamps nothing before it knows.
 * </ul>
 * One peer with a wrong clock does not stop a node: that peer refuses writes itself, and its
 * timestamps are refused by the others ({@link HybridLogicalClock#isAheadBy}).
 *
 * <p>Samples are kept against this node's monotonic clock ({@link Sample}): a node whose wall
 * clock jumps while it runs is behind or ahead of its peers from the first check after the jump,
 * not from its next measurement a second later.
 *
 * <p>Threading: thread-safe (concurrent maps of the last sample per peer, a volatile flag).
 */
public final class ClockSkew {
    static final long FRESH_MILLIS = 60_000;

    private final HybridLogicalClock clock;
    private final LongSupplier nanoTime;
    private final long boundMillis;
    /** Replaced whole when members join or leave ({@link #members}). */
    private volatile Set<String> peers;
    private final Map<String, Sample> heard = new ConcurrentHashMap<>();
    private final Map<String, Sample> measured = new ConcurrentHashMap<>();
    /** Starts a measurement round now (or joins the one running); set by {@link ClockCheck}. */
    private volatile java.util.function.Supplier<java.util.concurrent.CompletableFuture<Void>> measureNow;

    /**
     * One observation of a peer's clock, kept against this node's monotonic clock
     * ({@link System#nanoTime}, in milliseconds) rather than its wall clock. Reading it later
     * against the wall clock's distance from the monotonic clock at that moment gives the offset
     * as of now: a step of the wall clock since the sample (an NTP step, an operator's
     * {@code date -s}) counts at once, not only from the next measurement, and the sample's age is
     * time that really passed. (NTP's slewing moves the wall clock against the monotonic one by at
     * most 0.05 %, 30 ms over {@link #FRESH_MILLIS}: far inside any sensible bound.)
     *
     * @param peerMinusMonoMillis the peer's clock minus this node's monotonic clock, when observed
     * @param atMonoMillis        when, on this node's monotonic clock
     */
    private record Sample(long peerMinusMonoMillis, long uncertaintyMillis, long atMonoMillis) {
        /** The peer's clock minus this node's wall clock, given the wall clock's distance from the monotonic one now. */
        long aheadMillis(long wallMinusMono) {
            return peerMinusMonoMillis - wallMinusMono;
        }

        boolean fresh(long nowMono) {
            return nowMono - atMonoMillis <= FRESH_MILLIS;
        }

        boolean peerAheadBeyond(long bound, long wallMinusMono) {
            return aheadMillis(wallMinusMono) - uncertaintyMillis > bound;
        }

        boolean peerBehindBeyond(long bound, long wallMinusMono) {
            return aheadMillis(wallMinusMono) + uncertaintyMillis < -bound;
        }

        /** Within the bound either way, as far as this sample can tell. */
        boolean agrees(long bound, long wallMinusMono) {
            return !peerAheadBeyond(bound, wallMinusMono) && !peerBehindBeyond(bound, wallMinusMono);
        }
    }

    /** @param peers the ids of the other nodes; times sent by anyone else (a CLI, a test) are ignored */
    public ClockSkew(HybridLogicalClock clock, long boundMillis, Set<String> peers) {
        this(clock, boundMillis, peers, System::nanoTime);
    }

    /** @param nanoTime this node's monotonic clock ({@link System#nanoTime}; a test's own in tests) */
    ClockSkew(HybridLogicalClock clock, long boundMillis, Set<String> peers, LongSupplier nanoTime) {
        this.clock = clock;
        this.nanoTime = nanoTime;
        this.boundMillis = boundMillis;
        this.peers = Set.copyOf(peers);
    }

    /** Measures exactly these peers (ids) from now on: the membership changed. */
    public void members(Set<String> others) {
        this.peers = Set.copyOf(others);
    }

    /** Records a peer's sending time (epoch millis, its own clock) from a request it sent. */
    void heard(String peer, long peerMillis) {
        if (!peers.contains(peer)) {
            return;
        }
        long mono = monoMillis();
        Sample sample = new Sample(peerMillis - mono, 0, mono);
        if (sample.peerBehindBeyond(boundMillis, clock.wallMillis() - mono)) {
            // No evidence: the request may have waited, in the network or in this node's socket
            // while it was paused, and only a measurement says "behind". Kept, it would replace a
            // fresher measurement's verdict (the woken node refused its first write).
            return;
        }
        heard.put(peer, sample);
    }

    /**
     * Records a measurement: the peer's clock read {@code peerMillis} at the middle of a round trip
     * that took {@code roundTripMillis} and ended at {@code endMillis} on this node's clock.
     */
    void measured(String peer, long peerMillis, long endMillis, long roundTripMillis) {
        if (!peers.contains(peer)) {
            return;
        }
        long half = (roundTripMillis + 1) / 2;
        long mono = monoMillis();
        // The peer read peerMillis at endMillis - half on this node's wall clock, which was then
        // endMillis - mono away from the monotonic clock.
        measured.put(peer, new Sample(peerMillis - (endMillis - half) + (endMillis - mono), half, mono));
    }

    /** Why this node must not stamp a write now, or empty when it may. */
    public Optional<String> writeRefusal() {
        Optional<Long> behind = behindBy();
        if (behind.isPresent()) {
            return Optional.of("this node's clock is " + behind.get() + " ms behind its peers' (more than the bound of "
                    + boundMillis + " ms): versions it stamped would lose to older writes; fix its clock (NTP)");
        }
        Optional<Long> ahead = aheadBy();
        if (ahead.isPresent()) {
            return Optional.of("this node's clock is " + ahead.get() + " ms ahead of its peers' (more than the bound of "
                    + boundMillis + " ms): its peers refuse its timestamps; fix its clock (NTP)");
        }
        if (!confirmed()) {
            int agreeing = agreeingPeers();
            return Optional.of("this node's clock is not confirmed by a majority of its cluster: " + agreeing + " of "
                    + peers.size() + " peers seen within the bound of " + boundMillis + " ms in the last minute "
                    + "(the others unreachable or off); its versions could be out of order");
        }
        return Optional.empty();
    }

    /**
     * Why a write stamped {@code timestamp} just now must not go out, or empty when it may: checked
     * after stamping, as {@link #writeRefusal} is before. A wall clock that stepped between that
     * check and the stamp is seen here (the stamp read the clock after the step), and so is a stamp
     * further ahead of this node's own wall clock than the bound (the clock took in such a time
     * before its wall clock stepped back): its peers would refuse that record and only this node's
     * replica would keep it, to win over later writes.
     */
    public Optional<String> stampRefusal(long timestamp) {
        if (clock.isAheadBy(timestamp, boundMillis)) {
            return Optional.of("this node's clock issued " + HybridLogicalClock.format(timestamp) + ", more than the bound of "
                    + boundMillis + " ms ahead of its wall clock (" + java.time.Instant.ofEpochMilli(clock.wallMillis())
                    + "), which its peers would refuse; writes resume when the wall clock catches up");
        }
        return writeRefusal();
    }

    void measureWith(java.util.function.Supplier<java.util.concurrent.CompletableFuture<Void>> measureNow) {
        this.measureNow = measureNow;
    }

    /**
     * As {@link #writeRefusal}, but when the only reason is that the clock is not confirmed, after
     * measuring the peers once more (a write that arrives just after this node or its peers
     * started should not be refused for a round not yet run). Completes on the thread that
     * completes the measurement: move blocking work off it.
     */
    public java.util.concurrent.CompletableFuture<Optional<String>> writeRefusalAfterMeasuring() {
        Optional<String> refusal = writeRefusal();
        java.util.function.Supplier<java.util.concurrent.CompletableFuture<Void>> measure = measureNow;
        if (refusal.isEmpty() || measure == null || behindBy().isPresent() || aheadBy().isPresent()) {
            return java.util.concurrent.CompletableFuture.completedFuture(refusal);
        }
        return measure.get().handle((ignored, error) -> writeRefusal());
    }

    /**
     * The earliest the clocks of a majority of the cluster may read now, for work that must not run
     * early by this node's clock alone (tombstone collection): this node's wall clock less the
     * bound, while a majority of the cluster, itself included, agrees with its clock within the
     * bound. Empty while its clock is behind, ahead or not confirmed (any reason of
     * {@link #writeRefusal}): the node cannot tell the time then. The write path's stamp check
     * ({@link #stampRefusal}) is not needed here: it concerns the hybrid clock, not the wall clock.
     */
    public OptionalLong agreedEarliestMillis() {
        if (behindBy().isPresent() || aheadBy().isPresent() || !confirmed()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(clock.wallMillis() - boundMillis);
    }

    /** A majority of the cluster, this node included, agrees with its clock (always true without peers). */
    boolean confirmed() {
        return (agreeingPeers() + 1) * 2 > peers.size() + 1;
    }

    /** Peers whose freshest sample of the last minute is within the bound. */
    int agreeingPeers() {
        long mono = monoMillis();
        long wallMinusMono = clock.wallMillis() - mono;
        int agreeing = 0;
        for (String peer : peers) {
            Sample sample = freshest(mono, heard.get(peer), measured.get(peer));
            if (sample != null && sample.agrees(boundMillis, wallMinusMono)) {
                agreeing++;
            }
        }
        return agreeing;
    }

    /** How far behind its peers this node is, when more than half of them are ahead by more than the bound. */
    public Optional<Long> behindBy() {
        long mono = monoMillis();
        long wallMinusMono = clock.wallMillis() - mono;
        int ahead = 0;
        long smallest = Long.MAX_VALUE;
        for (String peer : peers) {
            Sample sample = freshest(mono, heard.get(peer), measured.get(peer));
            if (sample != null && sample.peerAheadBeyond(boundMillis, wallMinusMono)) {
                ahead++;
                smallest = Math.min(smallest, sample.aheadMillis(wallMinusMono) - sample.uncertaintyMillis());
            }
        }
        return ahead * 2 > peers.size() ? Optional.of(smallest) : Optional.empty();
    }

    /**
     * How far ahead of its peers this node is, when more than half of the peers it knows about
     * (a sample within {@link #FRESH_MILLIS}) were measured behind it by more than the bound. Only
     * a measurement says "behind"; a peer heard from within the bound counts as known and agreeing.
     */
    public Optional<Long> aheadBy() {
        long mono = monoMillis();
        long wallMinusMono = clock.wallMillis() - mono;
        int known = 0;
        int behind = 0;
        long smallest = Long.MAX_VALUE;
        for (String peer : peers) {
            Sample measuredSample = measured.get(peer);
            if (measuredSample != null && measuredSample.fresh(mono) && measuredSample.peerBehindBeyond(boundMillis, wallMinusMono)) {
                known++;
                behind++;
                smallest = Math.min(smallest, -measuredSample.aheadMillis(wallMinusMono) - measuredSample.uncertaintyMillis());
            } else if (freshest(mono, heard.get(peer), measuredSample) != null) {
                known++;
            }
        }
        return behind * 2 > known ? Optional.of(smallest) : Optional.empty();
    }

    private long monoMillis() {
        return nanoTime.getAsLong() / 1_000_000;
    }

    private static Sample freshest(long nowMono, Sample a, Sample b) {
        Sample fresher = a == null ? b : b == null || a.atMonoMillis() >= b.atMonoMillis() ? a : b;
        return fresher != null && fresher.fresh(nowMono) ? fresher : null;
    }

    public long boundMillis() {
        return boundMillis;
    }
}
