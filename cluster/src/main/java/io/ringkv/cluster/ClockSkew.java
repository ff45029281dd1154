package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

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
 *   <li>it has peers and has not finished its first measurement round since it started: a node
 *       restarted with a wrong clock must not stamp anything before it knows.
 * </ul>
 * One peer with a wrong clock does not stop a node: that peer refuses writes itself, and its
 * timestamps are refused by the others ({@link HybridLogicalClock#isAheadBy}).
 *
 * <p>Threading: thread-safe (concurrent maps of the last sample per peer, a volatile flag).
 */
public final class ClockSkew {
    static final long FRESH_MILLIS = 60_000;

    private final HybridLogicalClock clock;
    private final long boundMillis;
    private final Set<String> peers;
    private final Map<String, Sample> heard = new ConcurrentHashMap<>();
    private final Map<String, Sample> measured = new ConcurrentHashMap<>();
    private volatile boolean firstRoundDone;

    /** @param aheadMillis the peer's clock minus this node's; {@code atMillis} on this node's clock */
    private record Sample(long aheadMillis, long uncertaintyMillis, long atMillis) {
        boolean fresh(long now) {
            return now - atMillis <= FRESH_MILLIS;
        }

        boolean peerAheadBeyond(long bound) {
            return aheadMillis - uncertaintyMillis > bound;
        }

        boolean peerBehindBeyond(long bound) {
            return aheadMillis + uncertaintyMillis < -bound;
        }
    }

    /** @param peers the ids of the other nodes; times sent by anyone else (a CLI, a test) are ignored */
    public ClockSkew(HybridLogicalClock clock, long boundMillis, Set<String> peers) {
        this.clock = clock;
        this.boundMillis = boundMillis;
        this.peers = Set.copyOf(peers);
        this.firstRoundDone = this.peers.isEmpty();
    }

    /** Records a peer's sending time (epoch millis, its own clock) from a request it sent. */
    void heard(String peer, long peerMillis) {
        if (!peers.contains(peer)) {
            return;
        }
        long now = clock.wallMillis();
        heard.put(peer, new Sample(peerMillis - now, 0, now));
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
        measured.put(peer, new Sample(peerMillis - (endMillis - half), half, endMillis));
    }

    /** Every peer was measured or found unreachable once since this node started. */
    void firstRoundDone() {
        firstRoundDone = true;
    }

    /** Why this node must not stamp a write now, or empty when it may. */
    public Optional<String> writeRefusal() {
        if (!firstRoundDone) {
            return Optional.of("this node has not compared its clock with its peers' since it started");
        }
        Optional<Long> behind = behindBy();
        if (behind.isPresent()) {
            return Optional.of("this node's clock is " + behind.get() + " ms behind its peers' (more than the bound of "
                    + boundMillis + " ms): versions it stamped would lose to older writes; fix its clock (NTP)");
        }
        return aheadBy().map(ahead -> "this node's clock is " + ahead + " ms ahead of its peers' (more than the bound of "
                + boundMillis + " ms): its peers refuse its timestamps; fix its clock (NTP)");
    }

    /** How far behind its peers this node is, when more than half of them are ahead by more than the bound. */
    public Optional<Long> behindBy() {
        long now = clock.wallMillis();
        int ahead = 0;
        long smallest = Long.MAX_VALUE;
        for (String peer : peers) {
            Sample sample = freshest(now, heard.get(peer), measured.get(peer));
            if (sample != null && sample.peerAheadBeyond(boundMillis)) {
                ahead++;
                smallest = Math.min(smallest, sample.aheadMillis() - sample.uncertaintyMillis());
            }
        }
        return ahead * 2 > peers.size() ? Optional.of(smallest) : Optional.empty();
    }

    /**
     * How far ahead of its peers this node is, when more than half of the peers measured within
     * {@link #FRESH_MILLIS} are behind it by more than the bound.
     */
    public Optional<Long> aheadBy() {
        long now = clock.wallMillis();
        int known = 0;
        int behind = 0;
        long smallest = Long.MAX_VALUE;
        for (Sample sample : measured.values()) {
            if (!sample.fresh(now)) {
                continue;
            }
            known++;
            if (sample.peerBehindBeyond(boundMillis)) {
                behind++;
                smallest = Math.min(smallest, -sample.aheadMillis() - sample.uncertaintyMillis());
            }
        }
        return behind * 2 > known ? Optional.of(smallest) : Optional.empty();
    }

    private static Sample freshest(long now, Sample a, Sample b) {
        Sample fresher = a == null ? b : b == null || a.atMillis() >= b.atMillis() ? a : b;
        return fresher != null && fresher.fresh(now) ? fresher : null;
    }

    public long boundMillis() {
        return boundMillis;
    }
}
