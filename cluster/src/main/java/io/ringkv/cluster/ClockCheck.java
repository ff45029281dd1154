package io.ringkv.cluster;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures every peer's clock against this node's, at once when the node starts and then every
 * interval: an authenticated {@code GET} of the peer's time endpoint
 * ({@link InternalProtocol#TIME_PATH}), whose answer is placed at the middle of the round trip
 * ({@link ClockSkew#measured}). {@link ClockSkew} lets the node stamp writes while a majority of
 * the cluster agrees with its clock.
 *
 * <p>While a majority of the cluster has not confirmed this node's clock (at start, or with peers
 * unreachable), rounds run every {@link #UNCONFIRMED_EVERY_MILLIS} instead of every interval, so
 * that writes are taken again soon after peers answer.
 *
 * <p>Threading: one daemon thread ({@code ringkv-clock-check}) starts the rounds and never waits
 * for answers; answers land on the inter-node client's threads. A round starts only when the
 * previous one settled, so at most one request per peer is out.
 */
final class ClockCheck implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClockCheck.class);

    /** Replaced whole when members join or leave ({@link #members}). */
    private volatile List<ClusterNode> peers;
    private final ReplicaClient client;
    private final ClockSkew skew;
    private final LongSupplier wallMillis;
    private final long intervalMillis;
    private final ScheduledExecutorService thread;
    static final long UNCONFIRMED_EVERY_MILLIS = 100;
    private volatile CompletableFuture<Void> round = CompletableFuture.completedFuture(null);
    private volatile long roundStartedNanos;

    /** Measures exactly these peers from the next round on (the membership changed). */
    void members(List<ClusterNode> others) {
        this.peers = List.copyOf(others);
    }

    ClockCheck(List<ClusterNode> peers, ReplicaClient client, ClockSkew skew, LongSupplier wallMillis, long intervalMillis) {
        this.peers = List.copyOf(peers);
        this.client = client;
        this.skew = skew;
        this.wallMillis = wallMillis;
        this.intervalMillis = intervalMillis;
        skew.measureWith(this::measureNow);
        this.thread = DaemonScheduler.named("ringkv-clock-check");
    }

    /** Measures at once, then every interval; a one-node cluster has nobody to measure. */
    ClockCheck start() {
        if (!peers.isEmpty()) {
            round = measureAll();
            thread.scheduleWithFixedDelay(this::nextRound, UNCONFIRMED_EVERY_MILLIS, UNCONFIRMED_EVERY_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /**
     * Waits (at most {@code limit}) until a majority of the cluster confirmed this node's clock, so
     * that a node that just started takes writes at once unless its clock is off or its peers are
     * not up yet; rounds meanwhile run every {@link #UNCONFIRMED_EVERY_MILLIS}.
     */
    void awaitConfirmed(java.time.Duration limit) throws InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!skew.confirmed() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        if (!skew.confirmed()) {
            LOG.info("clock not confirmed by a majority of the cluster after {} ms; writes wait for it", limit.toMillis());
        }
    }

    /** Starts a round now unless one is running; completes when that round settled. */
    private synchronized CompletableFuture<Void> measureNow() {
        if (round.isDone()) {
            round = measureAll();
        }
        return round;
    }

    private synchronized void nextRound() {
        if (!round.isDone()) {
            return;
        }
        boolean due = !skew.confirmed() || System.nanoTime() - roundStartedNanos >= TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        if (due) {
            round = measureAll();
        }
    }

    private CompletableFuture<Void> measureAll() {
        roundStartedNanos = System.nanoTime();
        List<ClusterNode> peers = this.peers;
        CompletableFuture<?>[] answers = new CompletableFuture<?>[peers.size()];
        for (int i = 0; i < peers.size(); i++) {
            answers[i] = measure(peers.get(i));
        }
        return CompletableFuture.allOf(answers);
    }

    /** Completes normally whatever happens: a peer that cannot be measured is simply not counted. */
    private CompletableFuture<Void> measure(ClusterNode peer) {
        long sentNanos = System.nanoTime();
        CompletableFuture<Long> answer;
        try {
            answer = client.wallTime(peer);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        return answer.handle((peerMillis, error) -> {
            if (error != null) {
                LOG.debug("cannot measure the clock of {}: {}", peer, error.toString());
            } else {
                long roundTripMillis = (System.nanoTime() - sentNanos) / 1_000_000;
                skew.measured(peer.id(), peerMillis, wallMillis.getAsLong(), roundTripMillis);
            }
            return null;
        });
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("clock check still running 5 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
