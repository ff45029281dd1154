package io.ringkv.cluster;

import io.ringkv.cluster.meta.ClusterMetadata;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Catching up with the cluster metadata when a peer shows this node is behind: a linearizable read
 * through the metadata leader (a Raft read index, {@code MetadataGroup.readForCatchUp}) whose
 * result goes to {@link KnownMetadata}, so that placement follows it at once, before this node's
 * own replica of the log has applied the entries (it applies them later, and they change nothing
 * then: same epoch, same metadata). This works alike for voters and listeners, and needs no entry
 * of the log to travel first.
 *
 * <p>Reads are coalesced: one in flight at most, and one queued behind it, which every caller
 * that arrives meanwhile shares. A caller is only ever given a read that starts after its call
 * ({@link #fresh}), so what it learns is at least as new as anything committed before it asked;
 * however many peers name a newer epoch, this node makes at most two reads at a time.
 *
 * <p>Threading: thread-safe, never blocks; reads complete on the metadata client's threads
 * (Ratis's, or the inter-node executor), where {@link KnownMetadata#offer} runs.
 */
public final class MetadataCatchUp implements EpochExchange {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataCatchUp.class);

    private final KnownMetadata known;
    private final RateLimitedLog heardLog = new RateLimitedLog(60_000);
    private final RateLimitedLog failureLog = new RateLimitedLog(10_000);
    private final LongAdder fromAnswers = new LongAdder();
    private final LongAdder fromRequests = new LongAdder();
    /** Completed once the metadata group runs; reads asked for before wait for it. */
    private final CompletableFuture<Supplier<CompletableFuture<ClusterMetadata>>> reader = new CompletableFuture<>();
    /** Guarded by this: the read in flight, and the one queued to start when it ends. */
    private CompletableFuture<ClusterMetadata> running;
    private CompletableFuture<ClusterMetadata> queued;

    public MetadataCatchUp(KnownMetadata known) {
        this.known = known;
    }

    /**
     * Reads through {@code reader} from now on (the metadata group, once it runs). A read asked for
     * before (a node that has just started, its group still loading) starts now: a request that
     * waits for it is bounded by its own wait ({@link EpochGate}), not by this.
     */
    public void attach(Supplier<CompletableFuture<ClusterMetadata>> reader) {
        this.reader.complete(reader);
    }

    public KnownMetadata known() {
        return known;
    }

    @Override
    public long epoch() {
        return known.epoch();
    }

    /** Starts a catch-up when {@code epoch} is above what this node knows; returns at once. */
    @Override
    public void heard(ClusterNode peer, long epoch) {
        long mine = known.epoch();
        if (epoch <= mine) {
            return;
        }
        Fresh read = request();
        if (read.started()) {
            fromAnswers.increment();
            if (heardLog.allow(peer.id())) {
                LOG.info("peer {} answered at cluster metadata epoch {}, this node knows {}: catching up through the "
                        + "metadata leader", peer.id(), epoch, mine);
            }
        }
    }

    /**
     * The metadata as the leader has it, read by a read that starts no earlier than this call;
     * pending until the metadata group runs, failed when no leader answers (Ratis's client retries
     * for about ten seconds first). What it returns has been offered to {@link KnownMetadata} already.
     */
    public CompletableFuture<ClusterMetadata> fresh() {
        return request().future();
    }

    /** Catch-ups started because a peer's answer named a newer epoch (for the metrics). */
    public long fromAnswers() {
        return fromAnswers.sum();
    }

    /** Catch-ups started because a peer's request named a newer epoch (for the metrics). */
    public long fromRequests() {
        return fromRequests.sum();
    }

    /** A request carried {@code epoch}, above what this node knows: starts a catch-up; returns at once. */
    void behind(long epoch) {
        behindAndWaiting(epoch);
    }

    /** As {@link #behind}, for a request that waits: the read it may rely on (see {@link #fresh}). */
    CompletableFuture<ClusterMetadata> behindAndWaiting(long epoch) {
        Fresh read = request();
        if (read.started()) {
            fromRequests.increment();
        }
        return read.future();
    }

    /** A read for a caller, and whether the call started or queued it rather than joined a queued one. */
    private record Fresh(CompletableFuture<ClusterMetadata> future, boolean started) {
    }

    private Fresh request() {
        CompletableFuture<ClusterMetadata> launch;
        synchronized (this) {
            if (queued != null) {
                return new Fresh(queued, false);
            }
            if (running != null) {
                // The read in flight may have begun before the caller's epoch was committed.
                queued = new CompletableFuture<>();
                return new Fresh(queued, true);
            }
            running = new CompletableFuture<>();
            launch = running;
        }
        launch(launch); // outside the lock: a read that fails at once completes on this thread
        return new Fresh(launch, true);
    }

    /** Reads, offers what it read, completes {@code result}, then launches the queued read, if any. */
    private void launch(CompletableFuture<ClusterMetadata> result) {
        read().whenComplete((metadata, failure) -> {
            if (failure == null) {
                long before = known.epoch();
                if (known.offer(metadata)) {
                    LOG.info("caught up with the cluster metadata through its leader: epoch {}, was {}", metadata.epoch(),
                            before);
                }
            } else {
                if (failureLog.allow("read")) {
                    LOG.info("catching up with the cluster metadata through its leader failed (tried again when a peer "
                            + "next shows a newer epoch): {}", failure.toString());
                }
            }
            CompletableFuture<ClusterMetadata> next;
            synchronized (this) {
                next = queued;
                queued = null;
                running = next;
            }
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(metadata);
            }
            if (next != null) {
                launch(next);
            }
        });
    }

    private CompletableFuture<ClusterMetadata> read() {
        return reader.thenCompose(source -> {
            try {
                return source.get();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
    }
}
