package io.ringkv.cluster;

import io.ringkv.http.LogText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this node has seen of each peer: up since it answered a call or probe, down since
 * {@value #FAILURES_TO_DOWN} calls or probes in a row failed (refused, timed out, 5xx), unknown
 * before either. Fed by the coordinator's replica calls ({@link ReplicaCallListener}) and, for
 * peers no request went to lately, by {@link PeerProbe}. Each change is one INFO line.
 *
 * <p>Two failures, not one, so that a single lost request does not flap the state and the log;
 * one answer is enough to be up, as it proves the peer serves.
 *
 * <p>Threading: thread-safe. An answer, the common case, costs two volatile reads and one
 * ordered write; only state changes take the peer's lock.
 */
public final class PeerHealth implements ReplicaCallListener {

    private static final Logger LOG = LoggerFactory.getLogger(PeerHealth.class);
    /** Failed calls or probes in a row that make an up (or unknown) peer down. */
    public static final int FAILURES_TO_DOWN = 2;

    public enum State { UNKNOWN, UP, DOWN }

    /**
     * One peer as seen from here.
     *
     * @param sinceMillis wall-clock millis of the last change of state (this node's start while unknown)
     * @param lastFailure the last failure seen, or null
     */
    public record PeerStatus(String id, State state, long sinceMillis, String lastFailure) {
    }

    /**
     * Told of every change of a peer's state (the node's dashboard lists them). Called under the
     * peer's lock, on the thread whose call or probe caused the change: must be fast, must not block.
     */
    @FunctionalInterface
    public interface StateListener {
        /** @param why the failure that made the peer down, or null when it came up */
        void onStateChange(ClusterNode peer, State from, State to, String why);
    }

    /** Replaced whole when members join or leave ({@link #members}); read without a lock. */
    private volatile Map<ClusterNode, Peer> peers = new LinkedHashMap<>();
    private final LongSupplier wallMillis;
    private final List<StateListener> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param others     the peers (never this node)
     * @param wallMillis wall clock for "since" ({@code System::currentTimeMillis} outside tests)
     */
    public PeerHealth(List<ClusterNode> others, LongSupplier wallMillis) {
        this.wallMillis = wallMillis;
        long now = wallMillis.getAsLong();
        for (ClusterNode node : others) {
            peers.put(node, new Peer(node, now));
        }
    }

    /**
     * Tracks exactly these peers from now on: a member that joined starts unknown, one that left is
     * forgotten, the others keep their state. Called when the membership changes.
     */
    public synchronized void members(List<ClusterNode> others) {
        Map<ClusterNode, Peer> next = new LinkedHashMap<>();
        long now = wallMillis.getAsLong();
        for (ClusterNode node : others) {
            Peer known = peers.get(node);
            next.put(node, known != null ? known : new Peer(node, now));
        }
        peers = next;
    }

    @Override
    public void onReplicaCall(ClusterNode peer, long elapsedNanos, Throwable failure) {
        if (failure == null) {
            answered(peer);
        } else {
            failed(peer, failure.toString());
        }
    }

    /** From now on, {@code listener} is told of every change of state (changes before are not replayed). */
    public void addListener(StateListener listener) {
        listeners.add(listener);
    }

    /** The peer answered (a call or a probe that says it serves). */
    public void answered(ClusterNode node) {
        Peer peer = peers.get(node);
        if (peer == null) {
            return;
        }
        peer.lastOutcomeNanos.lazySet(System.nanoTime());
        if (peer.failuresInRow.get() != 0) {
            peer.failuresInRow.set(0);
        }
        if (peer.state != State.UP) {
            peer.change(State.UP, null, wallMillis.getAsLong(), listeners);
        }
    }

    /** A call or probe to the peer failed; {@code why} names how. */
    public void failed(ClusterNode node, String why) {
        Peer peer = peers.get(node);
        if (peer == null) {
            return;
        }
        peer.lastOutcomeNanos.lazySet(System.nanoTime());
        peer.lastFailure = why;
        if (peer.failuresInRow.incrementAndGet() >= FAILURES_TO_DOWN && peer.state != State.DOWN) {
            peer.change(State.DOWN, why, wallMillis.getAsLong(), listeners);
        }
    }

    /** Whether nothing was heard from (or tried against) the peer for {@code nanos}: time for a probe. */
    boolean quietFor(ClusterNode node, long nanos) {
        Peer peer = peers.get(node);
        return peer != null && System.nanoTime() - peer.lastOutcomeNanos.get() >= nanos;
    }

    /** Every peer, in cluster-list order. */
    public List<PeerStatus> peers() {
        List<PeerStatus> out = new ArrayList<>(peers.size());
        for (Peer peer : peers.values()) {
            synchronized (peer) {
                out.add(new PeerStatus(peer.node.id(), peer.state, peer.sinceMillis, peer.lastFailure));
            }
        }
        return out;
    }

    /** One peer's state; the counters are written by any thread, the state under the peer's lock. */
    private static final class Peer {
        final ClusterNode node;
        final AtomicInteger failuresInRow = new AtomicInteger();
        final AtomicLong lastOutcomeNanos = new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 4);
        volatile State state = State.UNKNOWN;
        volatile String lastFailure;
        long sinceMillis;

        Peer(ClusterNode node, long startMillis) {
            this.node = node;
            this.sinceMillis = startMillis;
        }

        synchronized void change(State to, String why, long nowMillis, List<StateListener> listeners) {
            if (state == to || (to == State.DOWN && failuresInRow.get() < FAILURES_TO_DOWN)) {
                return; // another thread got here first, or an answer came in between
            }
            State from = state;
            long forMillis = nowMillis - sinceMillis;
            state = to;
            sinceMillis = nowMillis;
            if (to == State.UP) {
                LOG.info("peer {} is up{}", node.id(), from == State.DOWN ? " again after " + forMillis + " ms down" : "");
            } else {
                LOG.info("peer {} is down ({} failed calls in a row, last: {}){}", node.id(), failuresInRow.get(), LogText.of(why),
                        from == State.UP ? " after " + forMillis + " ms up" : "");
            }
            for (StateListener listener : listeners) {
                try {
                    listener.onStateChange(node, from, to, why);
                } catch (RuntimeException e) { // a listener's bug must not fail the replica call that got here
                    LOG.warn("peer state listener failed", e);
                }
            }
        }
    }
}
