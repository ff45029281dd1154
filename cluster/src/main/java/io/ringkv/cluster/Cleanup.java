package io.ringkv.cluster;

import io.ringkv.store.RangeCursor;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ringkv cleanup}: drops the records this node holds but does not own, after handing each
 * to the nodes that do. A node holds records it does not own after the replication factor went
 * down, and after a write with an explicit {@code from} above the factor; anti-entropy never
 * compares those copies (it compares only what both sides own), so they would stay, stale, for good.
 *
 * <p>A run scans the store once, in key order, at the node's hand-over pace: at most
 * {@link ClusterSettings#streamBytesPerSecond} bytes of keys and values read per second (its own
 * {@link ScanPacer}, not anti-entropy's, so that a join or a leave moves at a rate of its own). Each record whose owners ({@link RendezvousPlacement#owners}) do not include
 * this node is sent to every owner that lacks its version, as the owner says when asked
 * ({@link HeldVersions}; {@link RecordPusher}, applied there by last-write-wins, so an
 * owner that holds something newer keeps it), a chunk at a time (at most {@link #CHUNK_RECORDS}
 * records and {@link #CHUNK_BYTES_MAX} bytes, so the records read and not yet dropped stay few
 * whatever the values' sizes). Only once every owner took the
 * chunk is each record purged here, and only if it is still the stored one
 * ({@link StorageEngine#purge}): a write that lands meanwhile stays. A record an owner refused, or
 * whose owner could not be reached, is kept (counted), so a run never leaves a key with fewer
 * copies of its newest version than it found; an owner that did not take a chunk in
 * {@value #OWNER_ATTEMPTS} attempts, with a pause between, is not asked again during the run.
 * Tombstones move the same way, so a delete is not undone by dropping it here.
 *
 * <p>A run that kept records it does not own is followed by another over those keys alone
 * ({@link KeptKeys}), {@link #FOLLOW_UP_PAUSE} later and twice as long before each next one, up to
 * {@value #FOLLOW_UPS_MAX} times (a run the store failed, by one over the whole store): an owner that was down or slow comes back, and a write that
 * landed between the scan and the purge (one a coordinator sent under the membership before the
 * change) is handed over as it now stands. Without them such copies stayed until the next change
 * or {@code ringkv cleanup}: a key on one node more than its owners, compared and updated by nothing.
 *
 * <p>A copy a sender routed under older owners can also land after this node's run read past its
 * key: a coordinator that had not yet heard of the change, a hand-over or a hint replay under the
 * view before. Every write batch carries the epoch its records were routed under; when that is
 * below this node's view's ({@link #storedFrom}), the keys this node owns neither now nor after the
 * change in progress are looked at by a follow-up as kept records are (and a run that ends with
 * such keys waiting does not count as settled). Without it such a copy stayed beside its owners',
 * as after a leave rolled back while a coordinator still wrote by the leaving view.
 *
 * <p>A run is asked for by {@code ringkv cleanup}, by a membership step's hand-over, and by the
 * node itself once ownership moved away from it ({@link OwnershipCleanups}, which
 * {@link #whenSettled} tells of each run that left nothing it does not own).
 *
 * <p>Threading: runs happen one at a time on one daemon thread ({@code ringkv-cleanup}), which also
 * waits out the pause before a follow-up; {@link #request}, {@link #stopRun} (which blocks its
 * caller until the run ends), {@link #storedFrom} (quick: it never blocks on a run) and
 * {@link #status} from any thread;
 * {@link #run} directly only from a test that never calls {@link #request}.
 */
public final class Cleanup implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Cleanup.class);
    /** Records not owned here sent per chunk before the chunk's purges. */
    static final int CHUNK_RECORDS = 1_024;
    /**
     * Bytes of keys and values a chunk holds at most (a record larger than this is a chunk alone):
     * a chunk stays in memory until its owners took it and it is purged, and a count alone let
     * 1,024 values of up to {@code --max-body} (16 MiB by default) pile up on a node's heap.
     */
    static final long CHUNK_BYTES_MAX = 8L << 20;
    private static final int PUSH_RECORDS_MAX = 256;
    /** Batches on their way to one owner at once: the scan reads on while the owner applies one. */
    private static final int PUSH_BATCHES_IN_FLIGHT = 2;
    /** Bytes read between two calls to the pacer at most (fewer records when they are large). */
    private static final long PACE_BYTES_MAX = 256 * 1024;
    /** Attempts at a chunk's records to one owner before the owner counts as failed for the run ({@link #handOver}). */
    static final int OWNER_ATTEMPTS = 3;
    /** The pause before an owner's second attempt; doubled before each one after. */
    static final Duration OWNER_RETRY_PAUSE = Duration.ofSeconds(1);
    /** Follow-ups after a run that kept records it does not own, before the keys wait for the next run asked for. */
    static final int FOLLOW_UPS_MAX = 6;
    /** The pause before the first follow-up; doubled before each one after (5 s to 160 s, 315 s in all). */
    static final Duration FOLLOW_UP_PAUSE = Duration.ofSeconds(5);

    private final StorageEngine engine;
    private final ClusterNodes topology;
    private final IntSupplier replicationFactor;
    private final ReplicaClient client;
    private final ScanPacer pacer;
    private final Duration answerWait;
    private final FirstSourceBuckets.OwnDigest ownDigest;
    private final Duration retryPause;
    private final Duration followUpPause;
    private final ScheduledExecutorService thread;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private boolean running;
    /** Guarded by {@link #lock}. */
    private CleanupStatus last = CleanupStatus.NONE;
    /** Guarded by {@link #lock}: another run was asked for while one ran; it starts when that one ends. */
    private boolean again;
    /** Guarded by {@link #lock}: the run in progress, as far as it got. */
    private CleanupStatus current;
    /** Guarded by {@link #lock}: the follow-up waiting for its turn, if any. */
    private ScheduledFuture<?> followUp;
    /** Guarded by {@link #lock}: follow-ups since the last run asked for. */
    private int followUps;
    /**
     * Guarded by {@link #lock}: keys of records stored here since the run in progress started (or
     * since the last run, when none runs) by senders that routed them under an older view, which
     * this node does not own ({@link #storedFrom}); the next follow-up looks at them.
     */
    private KeptKeys strays = new KeptKeys();
    /** The cleanup thread's: the epoch of the view the run in progress hands records over by. */
    private long runEpoch = -1;
    /** The cleanup thread's: what the run in progress kept of the records it does not own. */
    private KeptKeys kept = new KeptKeys();
    /** The cleanup thread's: the view and factor of the last run over the whole store, which its follow-ups finish. */
    private MembershipView wholeRunView;
    private int wholeRunFactor;
    /** Told when a run leaves nothing it does not own here ({@link #whenSettled}). */
    private volatile Settled settled = (view, factor) -> { };
    /** Set by {@link #stopRun}: the run in progress ends before its next record. */
    private volatile boolean stopping;

    /** How a run ends that {@link #stopRun} stopped. */
    private static final class Stopped extends RuntimeException {
        Stopped() {
            super("stopped before the end of the store (the step it served was rolled back)", null, false, false);
        }
    }

    /** Hears that the records this node does not own under a view are all handed over and dropped. */
    @FunctionalInterface
    interface Settled {
        /**
         * A run over the whole store under {@code view} and {@code replicationFactor}, with its
         * follow-ups, is over and kept nothing this node does not own. Called on the cleanup thread.
         */
        void settled(MembershipView view, int replicationFactor);
    }

    /**
     * @param ownDigest this node's live digest per peer ({@link AntiEntropy#digestAgainst}), which a
     *                  join's second source compares with the first's; {@link FirstSourceBuckets.OwnDigest#NONE}
     *                  to send every record a source sends
     */
    Cleanup(StorageEngine engine, ClusterNodes topology, IntSupplier replicationFactor,
            ReplicaClient client, ScanPacer pacer, Duration answerWait, FirstSourceBuckets.OwnDigest ownDigest) {
        this(engine, topology, replicationFactor, client, pacer, answerWait, ownDigest, OWNER_RETRY_PAUSE,
                FOLLOW_UP_PAUSE);
    }

    /**
     * @param retryPause    the pause before an owner's second attempt at a chunk (doubled after); tests shorten it
     * @param followUpPause the pause before the first follow-up (doubled after); tests shorten it
     */
    Cleanup(StorageEngine engine, ClusterNodes topology, IntSupplier replicationFactor, ReplicaClient client,
            ScanPacer pacer, Duration answerWait, FirstSourceBuckets.OwnDigest ownDigest, Duration retryPause,
            Duration followUpPause) {
        this.retryPause = retryPause;
        this.followUpPause = followUpPause;
        this.engine = engine;
        this.ownDigest = ownDigest;
        this.topology = topology;
        this.replicationFactor = replicationFactor;
        this.client = client;
        this.pacer = pacer;
        this.answerWait = answerWait;
        this.thread = DaemonScheduler.named("ringkv-cleanup");
    }

    /**
     * Starts a run, or, while one runs, another right after it: the one running may have started
     * under an older membership view, and the caller asks for a run under the view of now.
     *
     * @return a count the caller's run is over past ({@link CleanupStatus#runsCompleted} above it):
     *         the runs completed before this call, plus the one running
     */
    public long request() {
        synchronized (lock) {
            followUps = 0;
            if (followUp != null) {
                followUp.cancel(false); // this run looks at every key, those kept too
                followUp = null;
            }
            long before = last.runsCompleted();
            if (running) {
                again = true;
                return before + 1;
            }
            running = true;
            stopping = false;
            current = CleanupStatus.started(before);
            thread.execute(() -> runLogged(null));
            return before;
        }
    }

    /**
     * Stops the run in progress once the chunk it is handing over has been taken (so none of its
     * records is still on its way when this returns), and drops a run asked for after it and a
     * follow-up waiting; waits up to {@code wait} for the run to end. A leave rolled back calls it
     * before its node becomes normal again: the hand-over would otherwise go on sending copies by
     * the leaving view, and copies that land after their holders' own cleanup passed them would
     * stay there.
     *
     * @return whether no run runs any more
     */
    public boolean stopRun(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (lock) {
            again = false;
            if (followUp != null) {
                followUp.cancel(false);
                followUp = null;
            }
            if (running) {
                stopping = true;
            }
            while (running) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    /** Tells {@code listener} of each run that left nothing this node does not own (call before the first run). */
    void whenSettled(Settled listener) {
        this.settled = listener;
    }

    /**
     * Records for {@code keys} were just stored here from a sender that routed them under the view
     * of metadata epoch {@code routedAt} ({@link InternalProtocol#EPOCH_HEADER}; negative: not said).
     * When this node's view is newer, a key it owns neither now nor after the change in progress is
     * a copy the sender's older owners called for, and this node's cleanup for the newer view may
     * have read past it already: the key is remembered, and a follow-up hands it over and drops it.
     * Call after the records are stored; costs nothing unless the sender was behind.
     */
    void storedFrom(long routedAt, List<byte[]> keys) {
        if (routedAt < 0) {
            return;
        }
        MembershipView view = topology.view();
        if (view.epoch() <= routedAt) {
            return; // routed by this view or a newer one: a run for that view starts after this store
        }
        int rf = replicationFactor.getAsInt();
        ClusterNode self = topology.self();
        List<byte[]> notOwned = null;
        for (byte[] key : keys) {
            if (!view.ownsNowOrLater(key, self, rf)) {
                (notOwned == null ? notOwned = new ArrayList<>() : notOwned).add(key);
            }
        }
        if (notOwned == null) {
            return;
        }
        synchronized (lock) {
            notOwned.forEach(strays::add);
            if (!running && followUp == null) {
                followUps = 0; // a new reason for a look, whatever the last run's follow-ups came to
                scheduleFollowUp(new KeptKeys());
            }
        }
    }

    /** The run in progress, or the last one. */
    public CleanupStatus status() {
        synchronized (lock) {
            return running ? current : last;
        }
    }

    /** @param only the keys to look at (a follow-up); null: the whole store */
    private void runLogged(KeptKeys only) {
        long start = System.nanoTime();
        CleanupStatus done;
        KeptKeys keptNow = new KeptKeys();
        boolean completed = false;
        boolean failed = false;
        try {
            done = run(only);
            keptNow = kept;
            completed = true;
            LOG.info("cleanup: {} records not owned here, {} dropped after their owners took them ({} of them held by "
                    + "every owner already, not sent), {} kept", done.notOwned(), done.dropped(), done.heldByOwners(), done.kept());
        } catch (Stopped e) {
            LOG.info("cleanup: {}", e.getMessage());
            done = status().failed(e.getMessage());
        } catch (StoreException | RuntimeException e) {
            LOG.warn("cleanup failed; the whole store is looked at again by a follow-up", e);
            done = status().failed(e.toString());
            failed = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done = status().failed("interrupted");
        }
        keptNow = withStrays(keptNow);
        if (completed && keptNow.isEmpty() && wholeRunView != null) {
            settled.settled(wholeRunView, wholeRunFactor); // outside the lock: the listener takes its own
        }
        synchronized (lock) {
            last = done.finished(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            keptNow = withStrays(keptNow); // any stored since the line above
            try {
                if (again) {
                    again = false;
                    stopping = false;
                    followUps = 0;
                    current = CleanupStatus.started(last.runsCompleted());
                    thread.execute(() -> runLogged(null));
                    return;
                }
                if (failed) {
                    // The store threw (a read error, say): nothing says where the run got to, nor what
                    // it held; a node whose own cleanup failed would otherwise keep copies it does not
                    // own until the next change of ownership or start.
                    scheduleFollowUp(KeptKeys.wholeStore());
                } else if (!keptNow.isEmpty()) {
                    scheduleFollowUp(keptNow);
                }
            } catch (RejectedExecutionException closed) {
                // closed meanwhile: no more runs
            }
            running = false;
            current = null;
            lock.notifyAll(); // stopRun waits for it
        }
    }

    /** {@code kept} and the {@link #strays} noted so far, which are taken. */
    private KeptKeys withStrays(KeptKeys kept) {
        synchronized (lock) {
            if (strays.isEmpty()) {
                return kept;
            }
            KeptKeys both = kept.plus(strays);
            strays = new KeptKeys();
            return both;
        }
    }

    /** After a run that kept records it does not own: another over their keys, later. Holds {@link #lock}. */
    private void scheduleFollowUp(KeptKeys keys) {
        if (followUps == FOLLOW_UPS_MAX) {
            LOG.warn("cleanup: {} records not owned here are still kept after {} follow-ups; they move at the next "
                    + "membership change or `ringkv cleanup`", keys.count(), FOLLOW_UPS_MAX);
            return;
        }
        long pauseMillis = followUpPause.toMillis() << followUps;
        followUps++;
        if (keys.overflowed()) {
            LOG.info("cleanup: follow-up {} of {} over the whole store in {} ms", followUps, FOLLOW_UPS_MAX, pauseMillis);
        } else {
            LOG.info("cleanup: {} records not owned here kept, or stored since from senders behind; follow-up {} of {} in {} ms",
                    keys.count() + strays.count(), followUps, FOLLOW_UPS_MAX, pauseMillis);
        }
        followUp = thread.schedule(() -> {
            KeptKeys these;
            synchronized (lock) {
                followUp = null;
                if (running) {
                    return; // a run asked for meanwhile looks at every key
                }
                running = true;
                stopping = false;
                current = CleanupStatus.started(last.runsCompleted());
                these = keys.plus(strays);
                strays = new KeptKeys();
            }
            runLogged(these);
        }, pauseMillis, TimeUnit.MILLISECONDS);
    }

    /** Whether a follow-up waits for its turn (tests). */
    boolean followUpScheduled() {
        synchronized (lock) {
            return followUp != null;
        }
    }

    /** One run over the whole store; @return what it did (not yet {@linkplain CleanupStatus#finished finished}) */
    CleanupStatus run() throws StoreException, InterruptedException {
        return run(null);
    }

    /**
     * One run over the whole store, or over {@code only}'s keys where it holds all that a run kept
     * (the store when it overflowed); @return what it did (not yet {@linkplain CleanupStatus#finished finished})
     */
    private CleanupStatus run(KeptKeys only) throws StoreException, InterruptedException {
        synchronized (lock) {
            current = CleanupStatus.started(last.runsCompleted());
        }
        kept = new KeptKeys();
        boolean some = only != null && !only.overflowed();
        long toScan = some ? only.count() : engine.stats().estimatedKeys();
        update(status -> status.toScan(Math.max(0, toScan)));
        int rf = replicationFactor.getAsInt();
        MembershipView view = topology.view();
        runEpoch = view.epoch();
        if (only == null) {
            wholeRunView = view;
            wholeRunFactor = rf;
            synchronized (lock) {
                strays = new KeptKeys(); // stored before this scan starts: it reads them
            }
        }
        ClusterNode self = topology.self();
        Set<ClusterNode> failedOwners = new HashSet<>();
        HeldVersions versions = new HeldVersions(client, answerWait);
        FirstSourceBuckets firstSources = new FirstSourceBuckets(client, ownDigest, view.placement(), rf,
                answerWait.toMillis());
        List<NotOwned> chunk = new ArrayList<>();
        long chunkBytes = 0;
        int sincePace = 0;
        long bytesSincePace = 0;
        try (RangeCursor cursor = some ? only.cursor(engine) : engine.range(new byte[0], null)) {
            while (cursor.next()) {
                if (stopping) {
                    throw new Stopped(); // the chunk gathered so far is not sent; nothing of it was purged
                }
                byte[] key = cursor.key();
                Record record = cursor.record();
                bytesSincePace += key.length + record.value().length;
                if (++sincePace == ScanPacer.BATCH || bytesSincePace >= PACE_BYTES_MAX) {
                    // Paced and counted a batch at a time: the status lock and its copy once per batch, not per record.
                    pacer.scanned(bytesSincePace);
                    int batch = sincePace;
                    update(status -> status.scanned(batch));
                    sincePace = 0;
                    bytesSincePace = 0;
                }
                NotOwned handOver = handOver(view, self, key, record, rf, firstSources);
                if (handOver == null) {
                    continue;
                }
                long recordBytes = key.length + record.value().length;
                if (!chunk.isEmpty() && (chunk.size() == CHUNK_RECORDS || chunkBytes + recordBytes > CHUNK_BYTES_MAX)) {
                    handOver(chunk, failedOwners, versions);
                    chunk = new ArrayList<>();
                    chunkBytes = 0;
                }
                chunk.add(handOver);
                chunkBytes += recordBytes;
            }
        }
        int lastBatch = sincePace;
        update(status -> status.scanned(lastBatch));
        handOver(chunk, failedOwners, versions);
        synchronized (lock) {
            return current;
        }
    }

    /**
     * What becomes of one record: null when it stays as it is; else the nodes it goes to, and
     * whether it is purged here once they all took it. A node that owns the key now or after the
     * change in progress keeps it and sends it to the owners to be ({@link MembershipView#pending}),
     * which is how a joining node gets its keys and a leaving one hands its keys on; a node that
     * owns it neither now nor later sends it to every owner to be, then drops it.
     */
    private static NotOwned handOver(MembershipView view, ClusterNode self, byte[] key, Record record, int rf,
                                     FirstSourceBuckets firstSources) throws InterruptedException {
        RendezvousPlacement later = view.futurePlacement();
        if (view.ownsNowOrLater(key, self, rf)) {
            List<ClusterNode> pending = view.pending(key, rf);
            if (pending.isEmpty() || pending.equals(List.of(self))) {
                return null;
            }
            SendRule rule = rule(view, self, key, rf);
            if (!rule.sends() || rule.firstSource() != null && !firstSources.mayDiffer(rule.firstSource(), key)) {
                return null;
            }
            return new NotOwned(key, record, pending.stream().filter(node -> !node.equals(self)).toList(), false);
        }
        return new NotOwned(key, record, later.owners(key, Math.min(rf, later.clusterSize())), true);
    }

    /**
     * Whether, and on what condition, this node sends its copy of {@code key} to the key's pending
     * replicas. A leaving node sends every key it holds: it is the only node that runs a hand-over
     * for its leave. For a join (or a replacement), every owner runs one, and a majority of the
     * key's owners (the member being replaced left out) are its sources, the first by rank: a
     * write acknowledged by a majority of the owners is on at least one of them. The first source
     * sends every record; each other source sends only the records of the digest buckets in which
     * it differs from the first ({@link FirstSourceBuckets}), which is where a version the first
     * source lacks can be. So the joining node gets each key's newest acknowledged version while
     * receiving about one copy of each record rather than two at RF 3.
     */
    static SendRule rule(MembershipView view, ClusterNode self, byte[] key, int rf) {
        if (view.state(self).orElse(null) == io.ringkv.cluster.meta.MemberState.LEAVING) {
            return SendRule.ALWAYS;
        }
        RendezvousPlacement now = view.placement();
        List<ClusterNode> sources = new ArrayList<>(now.replicas(key, Math.min(rf, now.clusterSize())));
        sources.removeAll(view.replaced());
        int rank = sources.indexOf(self);
        if (rank < 0 || rank >= sources.size() / 2 + 1) {
            return SendRule.NEVER;
        }
        return rank == 0 ? SendRule.ALWAYS : new SendRule(true, sources.getFirst());
    }

    /**
     * What {@link #rule} says of one key.
     *
     * @param sends       whether this node is one of the key's sources
     * @param firstSource the source whose digest decides whether this node sends its copy (only
     *                    where the key's bucket differs); null when it sends it whatever
     */
    record SendRule(boolean sends, ClusterNode firstSource) {
        static final SendRule NEVER = new SendRule(false, null);
        static final SendRule ALWAYS = new SendRule(true, null);
    }

    /**
     * Sends a chunk to its owners, then purges each record every one of its owners took. An owner
     * whose batch failed (no answer within the call's timeout, a 5xx, a refused connection) is sent
     * its records of the chunk again, up to {@link #OWNER_ATTEMPTS} times in all with a pause
     * between, before it counts as failed for the rest of the run: a joining node that stalls once
     * for a moment (a GC pause, two busy cores) must not make its sources skip the rest of their
     * stores and the join run the whole pass again. The records go again whole; the owner applies
     * them by last-write-wins, so a batch that did arrive the first time changes nothing.
     */
    private void handOver(List<NotOwned> chunk, Set<ClusterNode> failedOwners, HeldVersions versions)
            throws StoreException, InterruptedException {
        if (chunk.isEmpty()) {
            return;
        }
        chunk = withoutCopiesHeld(chunk, failedOwners, versions);
        Set<byte[]> refused = new TreeSet<>(Arrays::compareUnsigned);
        RecordPusher.Outcomes outcomes = (key, refusedRecord, why) -> refused.add(key);
        Map<ClusterNode, Exception> failed = push(chunk, owner -> !failedOwners.contains(owner), outcomes);
        for (int attempt = 2; attempt <= OWNER_ATTEMPTS && !failed.isEmpty(); attempt++) {
            Thread.sleep(retryPause.toMillis() << (attempt - 2));
            Map<ClusterNode, Exception> before = failed;
            failed = push(chunk, before::containsKey, outcomes);
            for (Map.Entry<ClusterNode, Exception> owner : before.entrySet()) {
                if (!failed.containsKey(owner.getKey())) {
                    LOG.info("cleanup: owner {} took a chunk at attempt {} of {} (before: {})", owner.getKey(), attempt,
                            OWNER_ATTEMPTS, owner.getValue().toString());
                }
            }
        }
        failed.forEach((owner, why) -> ownerFailed(owner, failedOwners, why));
        for (NotOwned record : chunk) {
            boolean handedOver = !refused.contains(record.key()) && record.owners().stream().noneMatch(failedOwners::contains);
            if (!record.purge()) {
                long bytes = record.key().length + record.record().value().length;
                update(status -> handedOver ? status.handedOff(1, bytes) : status.kept(1));
            } else if (!handedOver) {
                kept.add(record.key());
                update(status -> status.notOwned(1).kept(1));
            } else if (engine.purge(record.key(), record.record())) {
                long bytes = record.key().length + record.record().value().length;
                long held = record.owners().isEmpty() ? 1 : 0;
                update(status -> status.notOwned(1).dropped(1, bytes).heldByOwners(held));
            } else {
                kept.add(record.key()); // written meanwhile: the newer record is for the follow-up
                update(status -> status.notOwned(1).kept(1));
            }
        }
    }

    /**
     * The chunk with each record to be dropped here sent only to the owners that lack its version
     * ({@link HeldVersions}): an owner that holds the version or a newer one is left out of the
     * record's owners, and a record all its owners hold goes to none and is dropped. After a join,
     * the former owners' records of the keys that moved are nearly all held already, and sending
     * them whole cost each node as many writes that changed nothing as it had keys to drop. An
     * owner that does not answer is sent everything, as before. Records this node keeps (a join's
     * or a leave's hand-over to pending replicas, which mostly lack them) are not checked.
     */
    private static List<NotOwned> withoutCopiesHeld(List<NotOwned> chunk, Set<ClusterNode> failedOwners, HeldVersions versions)
            throws InterruptedException {
        Map<ClusterNode, List<NotOwned>> toAsk = new LinkedHashMap<>();
        for (NotOwned record : chunk) {
            if (record.purge()) {
                for (ClusterNode owner : record.owners()) {
                    if (!failedOwners.contains(owner)) {
                        toAsk.computeIfAbsent(owner, node -> new ArrayList<>()).add(record);
                    }
                }
            }
        }
        if (toAsk.isEmpty()) {
            return chunk;
        }
        Map<ClusterNode, List<HeldVersions.Copy>> copies = new LinkedHashMap<>();
        toAsk.forEach((owner, records) -> copies.put(owner,
                records.stream().map(record -> new HeldVersions.Copy(record.key(), record.record())).toList()));
        Map<NotOwned, Set<ClusterNode>> holders = new java.util.IdentityHashMap<>();
        versions.ask(copies).forEach((owner, held) -> {
            List<NotOwned> asked = toAsk.get(owner);
            held.stream().forEach(at -> holders.computeIfAbsent(asked.get(at), record -> new HashSet<>()).add(owner));
        });
        if (holders.isEmpty()) {
            return chunk;
        }
        List<NotOwned> toSend = new ArrayList<>(chunk.size());
        for (NotOwned record : chunk) {
            Set<ClusterNode> held = holders.get(record);
            toSend.add(held == null ? record : new NotOwned(record.key(), record.record(),
                    record.owners().stream().filter(owner -> !held.contains(owner)).toList(), record.purge()));
        }
        return toSend;
    }

    /**
     * One attempt: the chunk's records to each of their owners that {@code to} accepts, one pusher
     * per owner, all owners in step; @return the owners whose batch failed, with why
     */
    private Map<ClusterNode, Exception> push(List<NotOwned> chunk, java.util.function.Predicate<ClusterNode> to,
                                             RecordPusher.Outcomes outcomes) throws InterruptedException {
        Map<ClusterNode, RecordPusher> pushers = new LinkedHashMap<>();
        Map<ClusterNode, Exception> failed = new LinkedHashMap<>();
        for (NotOwned record : chunk) {
            for (ClusterNode owner : record.owners()) {
                if (!to.test(owner) || failed.containsKey(owner)) {
                    continue;
                }
                RecordPusher pusher = pushers.computeIfAbsent(owner, node -> pusherFor(node, outcomes));
                try {
                    pusher.add(record.key(), record.record());
                } catch (ExecutionException | TimeoutException e) {
                    failed.put(owner, e);
                }
            }
        }
        for (Map.Entry<ClusterNode, RecordPusher> pusher : pushers.entrySet()) {
            if (failed.containsKey(pusher.getKey())) {
                continue;
            }
            try {
                pusher.getValue().finish();
            } catch (ExecutionException | TimeoutException e) {
                failed.put(pusher.getKey(), e);
            }
        }
        return failed;
    }

    private RecordPusher pusherFor(ClusterNode owner, RecordPusher.Outcomes outcomes) {
        return new RecordPusher(client, owner, PUSH_RECORDS_MAX, PUSH_BATCHES_IN_FLIGHT, answerWait, runEpoch, outcomes);
    }

    private void ownerFailed(ClusterNode owner, Set<ClusterNode> failedOwners, Exception why) {
        if (failedOwners.add(owner)) {
            LOG.warn("cleanup: owner {} did not take records ({}); its keys are kept here this run", owner, why.toString());
            update(status -> status.ownerFailed());
        }
    }

    private void update(java.util.function.UnaryOperator<CleanupStatus> change) {
        synchronized (lock) {
            current = change.apply(current);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("cleanup still running 5 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A record to hand over: the nodes it goes to ({@code owners}), and whether it is purged here
     * once they all took it (this node owns it neither now nor after the change in progress).
     */
    private record NotOwned(byte[] key, Record record, List<ClusterNode> owners, boolean purge) {
    }
}
