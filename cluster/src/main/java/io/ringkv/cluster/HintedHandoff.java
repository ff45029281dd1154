package io.ringkv.cluster;

import io.ringkv.store.Hint;
import io.ringkv.store.HintLog;
import io.ringkv.store.Record;
import io.ringkv.store.StoreException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hinted handoff: a write that a remote replica did not acknowledge (refused, timed out, failed)
 * is kept by the coordinator as a durable hint ({@link HintLog}, beside the data) and sent to that
 * replica again once it answers, so a replica that was down or unreachable catches up without
 * anyone reading its keys.
 *
 * <ul>
 *   <li>{@link #missed} stores the hint on the thread that saw the failure, before the failure is
 *       counted, so a write answered after the failure is hinted before the client hears of it.
 *   <li>Every {@link HintSettings#interval()}, counted from the start of the previous round, one replay
 *       round sends each target its oldest hints, at most {@link HintSettings#replayRatePerSecond()}
 *       records per second in all. They are read from the log a batch at a time, bounded by count
 *       ({@link HintSettings#batchRecordsMax()}) and by bytes ({@link ReplicaClient#batchBodyBytesMax()}),
 *       and sent in requests the target takes ({@link RecordPusher}): a hint of a value too large for
 *       a batch goes alone, so no hint is ever stuck behind the target's body limit. A batch keeps
 *       the newest record per key and is applied by last-write-wins, so replay never puts an older
 *       version over a newer one. A target that does not answer is tried again next round; sending
 *       the batch is the probe.
 *   <li>A record the target answers and refuses, sent alone ({@link RecordsRefusedException}: larger
 *       than its {@code --max-body}, stamped too far ahead of its clock), is dropped and counted
 *       ({@link HintDrops.Reason#REFUSED}): sent again it would be refused again, and it must not hold
 *       back the target's other hints. Anti-entropy offers it again each round.
 *   <li>A hint whose target owns its key neither now nor after the membership change in
 *       progress (the change completed, or the factor went down, since the write) is dropped and
 *       counted ({@link HintDrops.Reason#NOT_OWNER}), not replayed: replayed after the target's
 *       cleanup read past the key, it would leave a copy beside the owners' that nothing maintains.
 *       The write was acknowledged by a quorum of the owners to be (pending replicas count), so
 *       they hold it.
 *   <li>Bounded: at most {@link HintSettings#maxPerTarget()} hints and
 *       {@link HintSettings#maxBytesPerTarget()} bytes per target (further misses are not hinted
 *       and counted as dropped; the write is still acknowledged by the replicas that took it), and
 *       none older than {@link HintSettings#maxAge()} (dropped when met). What is dropped is left
 *       to anti-entropy.
 * </ul>
 *
 * <p>Threading: {@link #missed} from any thread; replay rounds on one daemon thread of its own
 * ({@code ringkv-hints}), which waits for each batch's answer (at most the replica request timeout
 * plus a margin): one dedicated thread, whatever the number of targets.
 */
public final class HintedHandoff implements MissedWriteListener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HintedHandoff.class);

    private final HintLog log;
    private final ClusterNodes topology;
    private final IntSupplier replicationFactor;
    private final Map<String, ClusterNode> targets = new ConcurrentHashMap<>();
    private final ReplicaClient client;
    private final HintSettings settings;
    private final LongSupplier wallMillis;
    private final ScheduledExecutorService scheduler;
    private final AtomicLong stored = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final HintDrops dropped;

    /**
     * @param wallMillis the wall clock for hint ages ({@code System::currentTimeMillis} outside tests)
     */
    public HintedHandoff(HintLog log, ClusterNodes topology, ReplicaClient client, HintSettings settings,
                         LongSupplier wallMillis) {
        this(log, topology, () -> Integer.MAX_VALUE, client, settings, wallMillis);
    }

    /**
     * @param replicationFactor the cluster's factor now: a hint whose target owns its key neither now
     *                          nor after the change in progress is dropped, not replayed
     *                          ({@link HintDrops.Reason#NOT_OWNER})
     */
    public HintedHandoff(HintLog log, ClusterNodes topology, IntSupplier replicationFactor,
                         ReplicaClient client, HintSettings settings, LongSupplier wallMillis) {
        this.log = log;
        this.topology = topology;
        this.replicationFactor = replicationFactor;
        this.client = client;
        this.settings = settings;
        this.wallMillis = wallMillis;
        this.dropped = new HintDrops(wallMillis);
        topology.others().forEach(node -> targets.put(node.id(), node));
        this.scheduler = DaemonScheduler.named("ringkv-hints");
    }

    /**
     * Hints for exactly these peers from now on: a member that joined can be hinted, one that left
     * gets no new hints (its old ones expire by age).
     */
    public void members(List<ClusterNode> others) {
        others.forEach(node -> targets.put(node.id(), node));
        targets.keySet().retainAll(others.stream().map(ClusterNode::id).toList());
    }

    /** Starts the replay rounds. */
    public HintedHandoff start() {
        scheduler.schedule(this::roundThenNext, settings.interval().toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Runs a round and schedules the next one an interval after this one started (at once when the
     * round took longer): a round's budget is an interval's worth of the replay rate, so replay keeps
     * that pace. Waiting a whole interval after each round, as before, made the pace budget / (round
     * time + interval): about half the rate while a large backlog drained. Missed starts (a paused
     * process) are not made up in a burst.
     */
    private void roundThenNext() {
        long started = System.nanoTime();
        replayRoundLogged();
        long elapsedMillis = (System.nanoTime() - started) / 1_000_000;
        try {
            scheduler.schedule(this::roundThenNext, Math.max(0, settings.interval().toMillis() - elapsedMillis),
                    TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // close() shut the scheduler down: no more rounds
        }
    }

    /**
     * Keeps a hint for a write {@code target} did not acknowledge. Never throws: a hint that cannot
     * be stored, or would pass a bound, is logged and counted as dropped; the write's outcome does
     * not depend on it.
     */
    @Override
    public void missed(ClusterNode target, byte[] key, Record record) {
        if (!targets.containsKey(target.id())) {
            return; // not a remote replica of this cluster (the local one is never hinted)
        }
        // Checked, then added: concurrent misses may pass a bound by a few hints, never by more.
        if (log.count(target.id()) >= settings.maxPerTarget()) {
            dropped.count(HintDrops.Reason.COUNT_BOUND, 1, target.id(), "hints for {} at their bound of {}; further misses are left to "
                    + "anti-entropy", target, settings.maxPerTarget());
            return;
        }
        if (log.bytes(target.id()) + Hint.sizeBytes(key, record) > settings.maxBytesPerTarget()) {
            dropped.count(HintDrops.Reason.BYTE_BOUND, 1, target.id(), "hints for {} at their bound of {} bytes; further misses are left "
                    + "to anti-entropy", target, settings.maxBytesPerTarget());
            return;
        }
        try {
            log.add(target.id(), key, record, wallMillis.getAsLong());
            stored.incrementAndGet();
        } catch (StoreException | RuntimeException e) {
            dropped.count(HintDrops.Reason.STORAGE_ERROR, 1, target.id(), "cannot store a hint for {}: {}", target, e.toString());
        }
    }

    /** Hints waiting, per target URL. */
    public Map<String, Long> pending() {
        return log.counts();
    }

    /** Hints stored, replayed (taken by their target) and dropped (bounds, age, refusals, storage errors) since start. */
    public long storedCount() {
        return stored.get();
    }

    public long replayedCount() {
        return replayed.get();
    }

    public long droppedCount() {
        return dropped.total();
    }

    /** Dropped hints since start by reason, every reason present. */
    public Map<HintDrops.Reason, Long> droppedByReason() {
        return dropped.byReason();
    }

    /** Stored hints found undecodable and skipped since the store opened (their writes are left to anti-entropy). */
    public long corruptCount() {
        return log.corruptSkipped();
    }

    private void replayRoundLogged() {
        try {
            replayRound();
        } catch (StoreException | RuntimeException e) {
            LOG.warn("hint replay round failed; next round in {}", settings.interval(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One round: each target with hints gets batches until it fails one or the round's budget is spent. */
    void replayRound() throws StoreException, InterruptedException {
        long budget = Math.max(1, settings.replayRatePerSecond() * settings.interval().toMillis() / 1000);
        for (String target : log.counts().keySet()) {
            ClusterNode node = targets.get(target);
            if (node == null) {
                continue; // a node no longer in the cluster list: its hints expire by age
            }
            while (budget > 0) {
                // Read no more than a request's worth of bytes at a time (a large hint alone), so a
                // backlog of large values costs little heap.
                List<Hint> hints = log.oldest(target, (int) Math.min(settings.batchRecordsMax(), budget),
                        client.batchBodyBytesMax());
                if (hints.isEmpty()) {
                    break;
                }
                budget -= hints.size();
                if (!replay(node, hints)) {
                    break;
                }
            }
        }
    }

    /**
     * Sends these hints' records and removes the hints once each record was taken or refused.
     *
     * @return false when the target did not answer (or failed): the hints stay for the next round
     */
    private boolean replay(ClusterNode node, List<Hint> hints) throws StoreException, InterruptedException {
        long oldestAllowed = wallMillis.getAsLong() - settings.maxAge().toMillis();
        TreeMap<byte[], Record> newestPerKey = new TreeMap<>(Arrays::compareUnsigned);
        int expired = 0;
        int notOwned = 0;
        MembershipView view = topology.view();
        int rf = replicationFactor.getAsInt();
        for (Hint hint : hints) {
            if (hint.createdMillis() < oldestAllowed) {
                expired++;
                continue;
            }
            if (!view.ownsNowOrLater(hint.key(), node, rf)) {
                notOwned++;
                continue;
            }
            newestPerKey.merge(hint.key(), hint.record(), (a, b) -> b.isNewerThan(a) ? b : a);
        }
        Set<byte[]> refused = new TreeSet<>(Arrays::compareUnsigned);
        if (!newestPerKey.isEmpty()) {
            RecordPusher pusher = new RecordPusher(client, node, settings.batchRecordsMax(), 1,
                    client.requestTimeout().multipliedBy(2), view.epoch(), (key, record, why) -> refused.add(key));
            try {
                for (Map.Entry<byte[], Record> entry : newestPerKey.entrySet()) {
                    pusher.add(entry.getKey(), entry.getValue());
                }
                pusher.finish();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("hint replay to {} failed, next round in {}: {}", node, settings.interval(), e.toString());
                return false;
            }
        }
        int refusedHints = 0;
        for (Hint hint : hints) {
            if (hint.createdMillis() >= oldestAllowed && refused.contains(hint.key())) {
                refusedHints++;
            }
        }
        replayed.addAndGet(hints.size() - expired - notOwned - refusedHints);
        if (notOwned > 0) {
            dropped.count(HintDrops.Reason.NOT_OWNER, notOwned, node.id(), "dropped {} hints for {}: it no longer owns "
                    + "their keys (the owners changed, or the factor went down), and the owners hold those writes", notOwned, node);
        }
        if (expired > 0) {
            dropped.count(HintDrops.Reason.AGE, expired, node.id(), "dropped {} hints for {} older than {}; left to anti-entropy",
                    expired, node, settings.maxAge());
        }
        if (refusedHints > 0) {
            dropped.count(HintDrops.Reason.REFUSED, refusedHints, node.id(), "dropped {} hints for {}: it refused their records even "
                    + "one at a time (a value over its --max-body, or stamped ahead of its clock); left to anti-entropy",
                    refusedHints, node);
        }
        log.remove(hints);
        return true;
    }

    /** Stops the replay rounds; hints stay stored for the next start. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("hint replay still running 5 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
