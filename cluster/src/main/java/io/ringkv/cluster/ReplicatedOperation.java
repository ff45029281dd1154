package io.ringkv.cluster;

import io.ringkv.cluster.CoordinatorPhase.Event;
import io.ringkv.cluster.CoordinatorPhase.Tally;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import io.ringkv.net.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One replicated PUT, DELETE or GET: fans out to its replicas, decides the client's answer as
 * soon as {@code ack} replies succeeded or success became impossible, and afterwards repairs
 * stale replicas a GET saw. A write during a membership change counts its owners and its future
 * owners apart ({@link MembershipView#writeSet}): it succeeds when both groups do. The phases and
 * their transitions are {@link CoordinatorPhase}.
 *
 * <p>Threading: replies arrive on whatever thread completes a replica's future: the inter-node
 * client's network thread (ringkv's client completes inline, see {@link InterNodeHttpClients}),
 * its executor (the JDK's client), or the caller's thread for the local replica. A reply is
 * counted, and the operation decided, on that thread: that work never blocks. What may block
 * (storing a hint for a failed write, read repair of the local replica) moves to the executor
 * given to {@link #start}. The phase, the tallies and the
 * freshest counted answer live in one immutable {@link Progress} swapped by compare-and-set, so
 * exactly one thread sees the transition that decides, and completes {@link #result()} once.
 * Per-replica answers are written by the replying thread before its future completes and read
 * only after all of them completed ({@code allOf} gives the happens-before edge).
 *
 * <p>A read may ask only some replicas at once and keep the others as spares: a spare is asked
 * from the thread of a failed reply, or from the executor when the spare delay passed. Spares are
 * remote (the coordinator's own replica, when it holds the key, is always among the first asked),
 * so asking one sends a request and never blocks. Each replica's slot is claimed once, by the
 * thread that asks it or, after the decision, by the one that passes it over.
 */
final class ReplicatedOperation implements DeadlineQueue.Expiring {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedOperation.class);

    private final byte[] key;
    private final Record written;
    private final List<Replica> replicas;
    private final HybridLogicalClock clock;
    private final MissedWriteListener missedWrites;
    private final long clockBoundMillis;
    private final ReplicaCallListener calls;
    private final ClusterNode self;
    /** When each replica was asked; set before its request, read by its replying thread. */
    private final long[] sentNanos;
    /** How many replicas are asked at once; the others are spares, asked one by one as replies fail. */
    private final int firstAsked;
    /**
     * Per replica: 1 once it was asked or passed over for good (a spare not needed), so never both.
     * Null, like {@link #nextSpare}, when every replica is asked at once (every write): nothing to claim.
     */
    private final AtomicIntegerArray claimed;
    private final AtomicInteger nextSpare;
    /** Per replica: completes when its reply was handled, or when it was passed over. */
    private final List<CompletableFuture<Void>> handled;
    private final AtomicReference<Progress> progress;
    /**
     * Per replica, whether it is among the owners and among the future owners a write during a
     * membership change counts apart; null otherwise (every replica counts in the one group).
     */
    private final boolean[] inOwners;
    private final boolean[] inFutureOwners;
    private final List<Optional<Record>> answers;
    private final CompletableFuture<Object> result = new CompletableFuture<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    /** The freshest timestamp a replica kept instead of this write (0: none); set before the reply is counted. */
    private final AtomicLong fresherKept = new AtomicLong();
    /** The metadata epoch of the view this operation's replicas were chosen by. */
    private final long routedAt;
    /** Runs what may block (hints, repairs); set by {@link #start} before any reply can arrive. */
    private Executor executor;

    /**
     * An operation on the replicas of {@code writes}, in the order of {@code replicas} (the same
     * nodes), every one asked at once and decided by its groups: the owners' {@code ack} and, for a
     * write during a change, the future owners' too.
     */
    ReplicatedOperation(byte[] key, Record written, List<Replica> replicas, MembershipView.WriteSet writes,
                        HybridLogicalClock clock, MissedWriteListener missedWrites, long clockBoundMillis,
                        ReplicaCallListener calls, ClusterNode self, long routedAt) {
        this(key, written, replicas, replicas.size(), writes.owners().ack(), writes.futureOwners() == null ? null : writes,
                clock, missedWrites, clockBoundMillis, calls, self, routedAt);
    }

    /**
     * @param firstAsked   how many of {@code replicas}, in list order, are asked at once; the rest are
     *                     spares for a read, asked in order as replies fail or when
     *                     {@link #start(DeadlineQueue, DeadlineQueue, Executor) the spare delay} passes
     * @param written      the record to store, or null for a read
     * @param missedWrites     told of each replica that fails a write, before the failure is counted
     * @param clockBoundMillis an answer whose timestamp is further ahead of this node's clock counts
     *                         as a failed reply and is not observed
     * @param calls told of each remote replica's answer or failure
     * @param self  this node, whose (local) replica {@code calls} is not told of; null: tell of all
     * @param routedAt the metadata epoch of the view {@code replicas} were chosen by, which its
     *                 writes and read repairs carry ({@link Replica#write(byte[], Record, long)})
     */
    ReplicatedOperation(byte[] key, Record written, List<Replica> replicas, int firstAsked, int ack,
                        HybridLogicalClock clock, MissedWriteListener missedWrites, long clockBoundMillis,
                        ReplicaCallListener calls, ClusterNode self, long routedAt) {
        this(key, written, replicas, firstAsked, ack, null, clock, missedWrites, clockBoundMillis, calls, self, routedAt);
    }

    /** @param groups a write's two groups during a change ({@link MembershipView#writeSet}), or null: one group, {@code ack} of all */
    private ReplicatedOperation(byte[] key, Record written, List<Replica> replicas, int firstAsked, int ack,
                                MembershipView.WriteSet groups, HybridLogicalClock clock, MissedWriteListener missedWrites,
                                long clockBoundMillis, ReplicaCallListener calls, ClusterNode self, long routedAt) {
        if (firstAsked < Math.min(ack, replicas.size()) || firstAsked > replicas.size() || (written != null && firstAsked != replicas.size())) {
            throw new IllegalArgumentException("ask at least ack and at most every replica at once (writes: every one), got "
                    + firstAsked + " of " + replicas.size() + " with ack " + ack);
        }
        this.firstAsked = firstAsked;
        this.sentNanos = new long[replicas.size()];
        boolean spares = firstAsked < replicas.size();
        this.claimed = spares ? new AtomicIntegerArray(replicas.size()) : null;
        this.nextSpare = spares ? new AtomicInteger(firstAsked) : null;
        this.handled = new ArrayList<>(replicas.size());
        for (int i = 0; i < replicas.size(); i++) {
            handled.add(new CompletableFuture<>());
        }
        this.calls = calls;
        this.self = self;
        this.routedAt = routedAt;
        this.key = key;
        this.written = written;
        this.replicas = replicas;
        this.clock = clock;
        this.missedWrites = missedWrites;
        this.clockBoundMillis = clockBoundMillis;
        if (groups == null) {
            this.inOwners = null;
            this.inFutureOwners = null;
            this.progress = new AtomicReference<>(new Progress(CoordinatorPhase.STARTED, Tally.start(ack, replicas.size()), null, null));
        } else {
            this.inOwners = new boolean[replicas.size()];
            this.inFutureOwners = new boolean[replicas.size()];
            for (int i = 0; i < replicas.size(); i++) {
                inOwners[i] = groups.owners().contains(replicas.get(i).node());
                inFutureOwners[i] = groups.futureOwners().contains(replicas.get(i).node());
            }
            this.progress = new AtomicReference<>(new Progress(CoordinatorPhase.STARTED,
                    Tally.start(groups.owners().ack(), groups.owners().nodes().size()),
                    Tally.start(groups.futureOwners().ack(), groups.futureOwners().nodes().size()), null));
        }
        this.answers = new ArrayList<>(replicas.size());
        for (int i = 0; i < replicas.size(); i++) {
            answers.add(null);
        }
    }

    /** Starts the requests, in list order; put the local replica last so remote I/O overlaps it. */
    ReplicatedOperation start(DeadlineQueue deadlines, Executor executor) {
        return start(deadlines, null, executor);
    }

    /**
     * As above; {@code spareDeadlines}, when there are spares, asks every spare not asked yet once
     * its delay passed without a decision (a slow replica, not only a failed one, brings a spare in).
     */
    ReplicatedOperation start(DeadlineQueue deadlines, DeadlineQueue spareDeadlines, Executor executor) {
        this.executor = executor;
        advance(Event.REPLICAS_CHOSEN);
        deadlines.add(this);
        if (firstAsked < replicas.size()) {
            if (spareDeadlines != null) {
                spareDeadlines.add(new SpareDelay());
            }
            // Once decided, spares not asked yet never will be: their slots are settled as passed over.
            result.whenComplete((outcome, error) -> passOverUnaskedSpares());
        }
        for (int i = 0; i < firstAsked; i++) {
            if (claimed != null) {
                claimed.set(i, 1);
            }
            send(i);
        }
        CompletableFuture.allOf(handled.toArray(CompletableFuture[]::new)).whenComplete((ignored, error) -> settle(error));
        return this;
    }

    /** Asks the next spare, if one is left and the operation is not decided. */
    private void askSpare() {
        while (nextSpare != null && !result.isDone()) {
            int index = nextSpare.getAndIncrement();
            if (index >= replicas.size()) {
                return;
            }
            if (claimed.compareAndSet(index, 0, 1)) {
                send(index);
                return;
            }
        }
    }

    private void passOverUnaskedSpares() {
        for (int i = firstAsked; i < replicas.size(); i++) {
            if (claimed.compareAndSet(i, 0, 1)) {
                handled.get(i).complete(null);
            }
        }
    }

    /** The spare delay of one read: asks every spare left unless the read is decided. */
    private final class SpareDelay implements DeadlineQueue.Expiring {
        @Override
        public boolean decided() {
            return result.isDone() || nextSpare.get() >= replicas.size();
        }

        @Override
        public void expire() {
            while (!decided()) {
                askSpare();
            }
        }
    }

    /** Completes with a {@link WriteOutcome} or a {@link ReadOutcome}, once. */
    CompletableFuture<Object> result() {
        return result;
    }

    /** Completes when the operation reached DONE: every reply and repair has settled. */
    CompletableFuture<Void> done() {
        return done;
    }

    CoordinatorPhase phase() {
        return progress.get().phase;
    }

    private void send(int index) {
        Replica replica = replicas.get(index);
        sentNanos[index] = System.nanoTime();
        CompletableFuture<Optional<Record>> reply;
        try {
            reply = written == null ? replica.read(key) : replica.write(key, written, routedAt).thenApply(kept -> {
                if (kept.isPresent()) {
                    fresherKept.accumulateAndGet(kept.getAsLong(), Math::max);
                    throw new CompletionException(new FresherRecordKeptException(replica.node(), kept.getAsLong()));
                }
                return Optional.<Record>empty();
            });
        } catch (RuntimeException e) {
            // Replicas must not throw (see Replica); if one does, it is a failed reply, not our crash.
            reply = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> done = handled.get(index);
        reply.whenComplete((answer, error) -> {
            if (error != null && written != null && !(unwrap(error) instanceof FresherRecordKeptException)) {
                // A failed write is hinted to storage before it is counted: not on a network thread.
                offload(() -> {
                    onReply(index, answer, error);
                    done.complete(null);
                });
            } else {
                onReply(index, answer, error);
                done.complete(null);
            }
        });
    }

    /**
     * Runs {@code task} here, or on the executor when this is an event loop's thread (a reply
     * completed by the network). If the executor refuses (shutting down), here: a reply must not
     * be lost.
     */
    private void offload(Runnable task) {
        if (!EventLoop.inAnyLoop()) {
            task.run();
            return;
        }
        try {
            executor.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            task.run();
        }
    }

    /**
     * The freshest timestamp among records that replicas kept instead of this write, or 0 when
     * none did (yet: read it once {@link #result()} completed, for the replies that decided it).
     */
    long fresherKept() {
        return fresherKept.get();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private void onReply(int index, Optional<Record> answer, Throwable error) {
        ClusterNode node = replicas.get(index).node();
        boolean keptFresher = error != null && unwrap(error) instanceof FresherRecordKeptException;
        if (!node.equals(self)) {
            // Before the clock-bound check below: the peer did answer, its clock is another matter.
            calls.onReplicaCall(node, System.nanoTime() - sentNanos[index], keptFresher ? null : error);
        }
        if (error == null && answer.isPresent() && clock.isAheadBy(answer.get().timestamp(), clockBoundMillis)) {
            LOG.warn("{} answered a record stamped {}, more than {} ms ahead of this node's clock: counted as a failed "
                    + "reply, not observed", replicas.get(index).node(), HybridLogicalClock.format(answer.get().timestamp()),
                    clockBoundMillis);
            error = new ReplicaException(replicas.get(index).node(), "record timestamp beyond the clock bound");
            answer = null;
        }
        if (error != null) {
            LOG.debug("{} failed for key of {} bytes: {}", replicas.get(index).node(), key.length, error.toString());
            if (written == null) {
                askSpare();
            }
            if (written != null && !keptFresher) {
                // Before the tally: a write decided by this failure's count is hinted before it is answered.
                // A replica that kept a fresher record needs no hint: it has something newer already.
                missedWrites.missed(replicas.get(index).node(), key, written);
            }
        } else {
            answers.set(index, answer);
            answer.ifPresent(record -> clock.observe(record.timestamp()));
        }
        Event event = error == null ? Event.REPLY_SUCCEEDED : Event.REPLY_FAILED;
        while (true) {
            Progress current = progress.get();
            if (current.phase != CoordinatorPhase.PLANNED) {
                CoordinatorPhase.next(current.phase, event, current.tally, current.futureTally); // late: validated, ignored
                return;
            }
            Tally tally = inOwners == null || inOwners[index] ? current.tally.plus(event) : current.tally;
            Tally futureTally = inFutureOwners != null && inFutureOwners[index] ? current.futureTally.plus(event) : current.futureTally;
            Record freshest = error == null ? fresher(current.freshest, answer.orElse(null)) : current.freshest;
            Progress next = new Progress(CoordinatorPhase.next(current.phase, event, tally, futureTally), tally, futureTally, freshest);
            if (progress.compareAndSet(current, next)) {
                if (next.phase.isDecided()) {
                    decide(next);
                }
                return;
            }
        }
    }

    @Override
    public boolean decided() {
        return result.isDone();
    }

    /** The coordinator's deadline passed first ({@link DeadlineQueue}); on its executor. */
    @Override
    public void expire() {
        onDeadline();
    }

    private void onDeadline() {
        Progress decided = advance(Event.DEADLINE_PASSED);
        if (decided.phase == CoordinatorPhase.TIMED_OUT) {
            decide(decided);
        }
    }

    private void decide(Progress decided) {
        result.complete(outcome(decided));
    }

    private Object outcome(Progress decided) {
        Tally tally = shortGroup(decided);
        if (decided.phase != CoordinatorPhase.QUORUM_MET) {
            return new NotEnoughReplicas(tally.successes(), tally.failures(), tally.ack(), tally.from(),
                    decided.phase == CoordinatorPhase.TIMED_OUT);
        }
        if (written != null) {
            return new WriteOutcome.Acknowledged(written.timestamp());
        }
        Record freshest = decided.freshest;
        return freshest == null || freshest.tombstone() ? new ReadOutcome.NotFound() : new ReadOutcome.Found(freshest);
    }

    /**
     * The group a failed operation names: the one that can no longer be met (the owners first),
     * else, after a timeout, the first not met.
     */
    private static Tally shortGroup(Progress decided) {
        if (decided.futureTally == null || decided.tally.impossible()) {
            return decided.tally;
        }
        if (decided.futureTally.impossible()) {
            return decided.futureTally;
        }
        return decided.tally.met() ? decided.futureTally : decided.tally;
    }

    /** Runs once, after every reply was handled. */
    private void settle(Throwable error) {
        if (error != null) {
            LOG.error("reply handling failed; finishing the operation anyway", error);
        }
        Record newest = newestAnswer();
        List<Integer> stale = written == null && newest != null ? staleReplicas(newest) : List.of();
        if (progress.get().phase == CoordinatorPhase.QUORUM_MET && !stale.isEmpty()) {
            advance(Event.STALE_REPLICAS_SEEN);
            // The local replica's repair is a storage write: off the thread of the last reply.
            offload(() -> repair(newest, stale).whenComplete((ignored, repairError) -> finish(Event.REPAIRS_SETTLED)));
        } else {
            finish(Event.ALL_SETTLED);
        }
    }

    /** Read repair: writes the newest record seen to each replica that answered with an older one. */
    private CompletableFuture<Void> repair(Record newest, List<Integer> stale) {
        CompletableFuture<?>[] writes = new CompletableFuture<?>[stale.size()];
        for (int i = 0; i < stale.size(); i++) {
            Replica replica = replicas.get(stale.get(i));
            LOG.debug("read repair of {} to {}", replica.node(), newest);
            try {
                writes[i] = replica.write(key, newest, routedAt).exceptionally(e -> {
                    LOG.debug("read repair of {} failed: {}", replica.node(), e.toString());
                    return OptionalLong.empty();
                });
            } catch (RuntimeException e) {
                writes[i] = CompletableFuture.failedFuture(e);
            }
        }
        return CompletableFuture.allOf(writes);
    }

    private void finish(Event event) {
        advance(event);
        done.complete(null);
    }

    private Record newestAnswer() {
        Record newest = null;
        for (Optional<Record> answer : answers) {
            if (answer != null) {
                newest = fresher(newest, answer.orElse(null));
            }
        }
        return newest;
    }

    private List<Integer> staleReplicas(Record newest) {
        List<Integer> stale = new ArrayList<>(answers.size());
        for (int i = 0; i < answers.size(); i++) {
            Optional<Record> answer = answers.get(i);
            if (answer != null && (answer.isEmpty() || newest.isNewerThan(answer.get()))) {
                stale.add(i);
            }
        }
        return stale;
    }

    private Progress advance(Event event) {
        while (true) {
            Progress current = progress.get();
            Progress next = new Progress(CoordinatorPhase.next(current.phase, event, current.tally, current.futureTally),
                    current.tally, current.futureTally, current.freshest);
            if (progress.compareAndSet(current, next)) {
                return next;
            }
        }
    }

    private static Record fresher(Record a, Record b) {
        if (a == null) {
            return b;
        }
        return b != null && b.isNewerThan(a) ? b : a;
    }

    @Override
    public String toString() {
        Progress current = progress.get();
        return "ReplicatedOperation{" + (written == null ? "read" : "write") + ", " + current.phase + ", " + current.tally
                + (current.futureTally == null ? "" : ", future owners " + current.futureTally) + '}';
    }

    /** @param futureTally the future owners' replies (a write during a change), else null */
    private record Progress(CoordinatorPhase phase, Tally tally, Tally futureTally, Record freshest) {
    }
}
