package io.ringkv.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One INFO line when a peer answers a replica call slower than a threshold, at most one per peer
 * per {@link #EVERY_NANOS}, counting the slow answers in between: a slow replica shows in the log
 * without a line per request.
 *
 * <p>Threading: thread-safe; a call under the threshold costs one comparison.
 */
final class SlowReplicaLog implements ReplicaCallListener {

    private static final Logger LOG = LoggerFactory.getLogger(SlowReplicaLog.class);
    static final long EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final long thresholdNanos;
    /** Replaced whole when members join or leave ({@link #members}). */
    private volatile Map<ClusterNode, Counts> peers = new HashMap<>();

    SlowReplicaLog(List<ClusterNode> others, long thresholdNanos) {
        this.thresholdNanos = thresholdNanos;
        for (ClusterNode node : others) {
            peers.put(node, new Counts());
        }
    }

    /** Watches exactly these peers from now on (the membership changed). */
    synchronized void members(List<ClusterNode> others) {
        Map<ClusterNode, Counts> next = new HashMap<>();
        for (ClusterNode node : others) {
            next.put(node, peers.getOrDefault(node, new Counts()));
        }
        peers = next;
    }

    @Override
    public void onReplicaCall(ClusterNode peer, long elapsedNanos, Throwable failure) {
        if (failure != null || elapsedNanos < thresholdNanos) {
            return;
        }
        Counts counts = peers.get(peer);
        if (counts == null) {
            return;
        }
        long slow = counts.slowSinceLine.incrementAndGet();
        long now = System.nanoTime();
        long last = counts.lastLineNanos.get();
        if (now - last >= EVERY_NANOS && counts.lastLineNanos.compareAndSet(last, now)) {
            counts.slowSinceLine.addAndGet(-slow);
            LOG.info("replica {} is slow: answered in {} ms (threshold {} ms); {} slow answers since the last such line",
                    peer.id(), TimeUnit.NANOSECONDS.toMillis(elapsedNanos), TimeUnit.NANOSECONDS.toMillis(thresholdNanos), slow);
        }
    }

    private static final class Counts {
        final AtomicLong slowSinceLine = new AtomicLong();
        final AtomicLong lastLineNanos = new AtomicLong(System.nanoTime() - EVERY_NANOS);
    }
}
