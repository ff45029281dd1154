package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How far this node's wall clock is from its peers', as seen in the sending time every
 * authenticated internal request carries ({@link InternalAuth#TIME_HEADER}), and whether this
 * node is so far behind that it must stop stamping writes: versions it stamped would lose to
 * older writes through its peers.
 *
 * <p>This node counts as behind when more than half of its peers, each heard from within the last
 * {@link #FRESH_MILLIS}, sent times ahead of its clock by more than the bound. One peer with a fast
 * clock does not stop a node; that peer's own timestamps are refused instead
 * ({@link HybridLogicalClock#isAheadBy}). Network delay only makes a peer look behind, never ahead.
 *
 * <p>Threading: thread-safe (a concurrent map of the last sample per peer).
 */
public final class ClockSkew {
    static final long FRESH_MILLIS = 60_000;

    private final HybridLogicalClock clock;
    private final long boundMillis;
    private final java.util.Set<String> peers;
    private final Map<String, Sample> samples = new ConcurrentHashMap<>();

    private record Sample(long aheadMillis, long atMillis) {
    }

    /** @param peers the ids of the other nodes; times sent by anyone else (a CLI, a test) are ignored */
    public ClockSkew(HybridLogicalClock clock, long boundMillis, java.util.Set<String> peers) {
        this.clock = clock;
        this.boundMillis = boundMillis;
        this.peers = java.util.Set.copyOf(peers);
    }

    /** Records a peer's sending time (epoch millis, its own clock). */
    void heard(String peer, long peerMillis) {
        if (!peers.contains(peer)) {
            return;
        }
        long now = clock.wallMillis();
        samples.put(peer, new Sample(peerMillis - now, now));
    }

    /** How far behind its peers this node is, when more than half of them are ahead by more than the bound. */
    public Optional<Long> behindBy() {
        long now = clock.wallMillis();
        int ahead = 0;
        long smallest = Long.MAX_VALUE;
        for (Sample sample : samples.values()) {
            if (now - sample.atMillis() <= FRESH_MILLIS && sample.aheadMillis() > boundMillis) {
                ahead++;
                smallest = Math.min(smallest, sample.aheadMillis());
            }
        }
        return ahead * 2 > peers.size() ? Optional.of(smallest) : Optional.empty();
    }

    public long boundMillis() {
        return boundMillis;
    }
}
