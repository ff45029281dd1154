package io.ringkv.cluster;

import io.ringkv.cluster.meta.ClusterMetadata;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The newest cluster metadata this node knows: what its replica of the metadata log applied, or a
 * newer state it read linearizably through the metadata leader while catching up
 * ({@link MetadataCatchUp}). Two nodes at the same epoch hold the same metadata, so either source
 * gives the same value for an epoch; this keeps the highest. Its epoch is what this node's internal
 * requests and answers carry ({@link InternalProtocol#EPOCH_HEADER}); its listeners (placement's
 * {@link ReplicationFactor}) hear every newer value once, in epoch order, never an older one after
 * a newer. Requests from a node ahead wait here ({@link #await}) until this node knows their epoch.
 *
 * <p>Threading: thread-safe. {@link #offer} is called on Ratis threads (the state machine's
 * applier, a client's completion); it runs the listeners under this object's lock, so they must be
 * quick and never block, and completes the waiters after releasing it. {@link #epoch} and
 * {@link #current} are volatile reads.
 */
public final class KnownMetadata {

    /** Requests that may wait for a newer epoch at once; more are refused at once ({@link EpochGate}). */
    public static final int WAITERS_MAX = 1024;

    private static final Logger LOG = LoggerFactory.getLogger(KnownMetadata.class);

    private final List<Consumer<ClusterMetadata>> listeners = new CopyOnWriteArrayList<>();
    /** Guarded by this. */
    private final List<Waiter> waiters = new ArrayList<>();
    private volatile ClusterMetadata current = ClusterMetadata.EMPTY;

    private record Waiter(long epoch, CompletableFuture<Void> reached) {
    }

    /** Hears every newer metadata from now on (on the offering thread; must not block). */
    public void listen(Consumer<ClusterMetadata> listener) {
        listeners.add(listener);
    }

    public ClusterMetadata current() {
        return current;
    }

    /** The epoch of {@link #current}: 0 until this node knows the initialised metadata. */
    public long epoch() {
        return current.epoch();
    }

    /**
     * Takes {@code metadata} when its epoch is above the one known; an older or equal one changes
     * nothing (the same epoch is the same metadata).
     *
     * @return whether it was newer
     */
    public boolean offer(ClusterMetadata metadata) {
        List<CompletableFuture<Void>> due = new ArrayList<>();
        synchronized (this) {
            if (metadata.epoch() <= current.epoch()) {
                return false;
            }
            current = metadata;
            for (Consumer<ClusterMetadata> listener : listeners) {
                try {
                    listener.accept(metadata);
                } catch (RuntimeException e) {
                    LOG.error("a listener of the cluster metadata failed on epoch {}", metadata.epoch(), e);
                }
            }
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                Waiter waiter = it.next();
                if (waiter.epoch() <= metadata.epoch()) {
                    it.remove();
                    due.add(waiter.reached());
                }
            }
        }
        due.forEach(reached -> reached.complete(null));
        return true;
    }

    /**
     * A future completed once this node knows {@code epoch} or a later one (at once when it does
     * already); cancel it to stop waiting. Empty when {@link #WAITERS_MAX} wait already: the
     * caller refuses rather than queue without bound.
     */
    public Optional<CompletableFuture<Void>> await(long epoch) {
        Waiter waiter;
        synchronized (this) {
            if (current.epoch() >= epoch) {
                return Optional.of(CompletableFuture.completedFuture(null));
            }
            if (waiters.size() >= WAITERS_MAX) {
                return Optional.empty();
            }
            waiter = new Waiter(epoch, new CompletableFuture<>());
            waiters.add(waiter);
        }
        // Cancelled or timed out: forget it, so that waiters never pile up.
        waiter.reached().whenComplete((ignored, failure) -> forget(waiter));
        return Optional.of(waiter.reached());
    }

    /** Requests waiting for a newer epoch now. */
    public synchronized int waiting() {
        return waiters.size();
    }

    private synchronized void forget(Waiter waiter) {
        waiters.remove(waiter);
    }
}
