package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A linearizable compare-and-set per key among the key's replicas: the proposer of single-decree
 * Paxos, one decision per conditional write, as Cassandra's lightweight transactions do. Each
 * attempt:
 * <ol>
 *   <li><b>Prepare</b> a ballot, a timestamp of this node's {@link HybridLogicalClock} (unique per
 *       node: its low bits name the node), at every replica of the key; a majority must promise.
 *       A refusal names the higher ballot promised, which the clock observes, so the next attempt
 *       is above it.
 *   <li><b>Finish an earlier proposal</b>: the one the promises report accepted at the highest
 *       ballot, unless a replica that accepted it at that ballot holds it already (committed
 *       there): propose it again at this ballot, commit it, and start over with a new ballot.
 *   <li><b>Read</b> the current record: the freshest of the promises' (every promise carries the
 *       replica's current version). Every conditional write before this one was committed to a
 *       majority before it answered, or is finished by step 2, so the quorum sees it.
 *   <li><b>Judge the condition</b>: {@link CasOutcome.Refused} when it does not hold.
 *   <li><b>Propose</b> the write, stamped with the ballot, at a majority, then <b>commit</b> it as
 *       an ordinary replicated write to every replica of the key, answering once {@code ack}
 *       (at least a majority) stored it.
 * </ol>
 * A lost attempt (a promise or acceptance refused for a higher ballot) is retried after a small
 * random backoff, at most {@link #ATTEMPTS_MAX} times in all.
 *
 * <p>A conditional write's replicas are the key's owners in this node's view of the members when
 * it starts, and every Paxos message says that view's epoch: an acceptor whose view has another
 * epoch, or a change in progress, refuses it ({@link PaxosAcceptor}). An attempt that finds this
 * node's view moved on starts again under the new one, keeping what it knows of its own proposals
 * (one the new replicas report accepted is finished, and is this write's success). While a member
 * joins or leaves, conditional writes are refused ({@link MembershipChangeException}).
 *
 * <p>Plain writes do not take part: one racing a conditional write orders against it by timestamp
 * (the conditional write's is its ballot), as any two writes do.
 *
 * <p>Threading: thread-safe, no state between operations. Call on the handler executor (this
 * node's acceptor runs on the calling thread); every step after a peer's answer continues on the
 * executor given, never on the inter-node client's threads.
 */
public final class CompareAndSet {
    private static final Logger LOG = LoggerFactory.getLogger(CompareAndSet.class);

    /** Attempts (each a prepare, and maybe an accept) before a conditional write gives up. */
    static final int ATTEMPTS_MAX = 12;
    /** The longest random pause between two attempts, in ms; the pause doubles from 2 ms up to it. */
    static final int BACKOFF_MILLIS_MAX = 64;

    private final java.util.function.Supplier<RendezvousPlacement> placement;
    private final java.util.function.Supplier<MembershipView> view;
    private final IntSupplier replicationFactor;
    private final java.util.function.Function<ClusterNode, PaxosPeer> peers;
    private final Coordinator coordinator;
    private final HybridLogicalClock clock;
    private final ClockSkew clockSkew;
    private final Executor executor;

    /** @param replicationFactor the factor placement follows now: a key's Paxos replicas are its owners */
    CompareAndSet(RendezvousPlacement placement, IntSupplier replicationFactor, Map<ClusterNode, PaxosPeer> peers,
                  Coordinator coordinator, HybridLogicalClock clock, ClockSkew clockSkew, Executor executor) {
        this(() -> placement, null, replicationFactor, Map.copyOf(peers)::get, coordinator, clock, clockSkew, executor);
    }

    /**
     * @param topology the cluster whose current owners are each key's Paxos replicas
     * @param peers    the Paxos peer of each member (called per round; cache it)
     */
    CompareAndSet(ClusterNodes topology, IntSupplier replicationFactor, java.util.function.Function<ClusterNode, PaxosPeer> peers,
                  Coordinator coordinator, HybridLogicalClock clock, ClockSkew clockSkew, Executor executor) {
        this(topology::placement, topology::view, replicationFactor, peers, coordinator, clock, clockSkew, executor);
    }

    private CompareAndSet(java.util.function.Supplier<RendezvousPlacement> placement, java.util.function.Supplier<MembershipView> view,
                          IntSupplier replicationFactor, java.util.function.Function<ClusterNode, PaxosPeer> peers,
                          Coordinator coordinator, HybridLogicalClock clock, ClockSkew clockSkew, Executor executor) {
        this.placement = placement;
        this.view = view;
        this.replicationFactor = replicationFactor;
        this.peers = peers;
        this.coordinator = coordinator;
        this.clock = clock;
        this.clockSkew = clockSkew;
        this.executor = executor;
    }

    /**
     * Writes {@code write.apply(timestamp)} if {@code condition} holds for the key's current record.
     *
     * @param write  the record to store, given the timestamp it must carry (a value, a tombstone,
     *               or a value whose expiry is counted from that timestamp)
     * @param params {@code ack} is raised to a majority of the key's replicas; every replica is asked
     */
    public CompletableFuture<CasOutcome> write(byte[] key, CasCondition condition, LongFunction<Record> write,
                                               ReplicationParams params) {
        Optional<String> refusal = clockSkew == null ? Optional.empty() : clockSkew.writeRefusal();
        if (refusal.isEmpty()) {
            return start(key, condition, write, params, 1, null);
        }
        // As for plain writes: a clock not yet confirmed (peers just started) gets one measurement round first.
        return clockSkew.writeRefusalAfterMeasuring().thenComposeAsync(again -> again.isPresent()
                ? CompletableFuture.failedFuture(new ClockRefusedException(again.get()))
                : start(key, condition, write, params, 1, null), executor);
    }

    /**
     * A run under this node's view of now, from attempt {@code attempt} on.
     *
     * @param before the run under the view before, whose proposals this one takes over; null for the first
     */
    private CompletableFuture<CasOutcome> start(byte[] key, CasCondition condition, LongFunction<Record> write,
                                                ReplicationParams params, int attempt, Run before) {
        MembershipView now = view == null ? null : view.get();
        if (now != null && now.changing()) {
            return CompletableFuture.failedFuture(new MembershipChangeException(MembershipChangeException.conditionalWritesRefused(
                    now.epoch())));
        }
        List<ClusterNode> nodes = replicasOf(now == null ? placement.get() : now.placement(), key);
        int quorum = ReplicationParams.quorum(nodes.size());
        ReplicationParams commit = new ReplicationParams(Math.max(params.ack(), quorum), nodes.size());
        long epoch = now == null ? PaxosAcceptor.NO_EPOCH : now.epoch();
        Run run = new Run(key, condition, write, params, nodes, quorum, commit, epoch);
        if (before != null) {
            run.proposed.putAll(before.proposed);
            run.ambiguous = before.ambiguous;
        }
        return run.attempt(attempt);
    }

    /**
     * The key's replicas under {@code owners}: the first replication-factor nodes of its rendezvous
     * order. A change of the factor moves the epoch too, so a run under the factor before it is
     * refused by the replicas that know the new one, as a membership change's is; one that does
     * not know it yet still takes part (see docs/cluster.md).
     */
    private List<ClusterNode> replicasOf(RendezvousPlacement owners, byte[] key) {
        return owners.owners(key, Math.min(replicationFactor.getAsInt(), owners.clusterSize()));
    }

    /** The epoch of this node's view of now; {@link PaxosAcceptor#NO_EPOCH} without one. */
    private long epochNow() {
        MembershipView now = view == null ? null : view.get();
        return now == null ? PaxosAcceptor.NO_EPOCH : now.epoch();
    }

    /** One conditional write's attempts; its fields are touched by one step at a time (each after the previous). */
    private final class Run {
        private final byte[] key;
        private final CasCondition condition;
        private final LongFunction<Record> write;
        private final ReplicationParams params;
        private final List<ClusterNode> nodes;
        private final int quorum;
        private final ReplicationParams commit;
        /** The epoch of the view {@link #nodes} came from, which every message of this run carries. */
        private final long epoch;
        /** The records this run proposed, by timestamp: finding one of them chosen is this run's success. */
        private final Map<Long, Record> proposed = new HashMap<>();
        /** Whether a proposal of this run may have been accepted by some replica without this run learning it was chosen. */
        private boolean ambiguous;

        Run(byte[] key, CasCondition condition, LongFunction<Record> write, ReplicationParams params, List<ClusterNode> nodes,
            int quorum, ReplicationParams commit, long epoch) {
            this.key = key;
            this.condition = condition;
            this.write = write;
            this.params = params;
            this.nodes = nodes;
            this.quorum = quorum;
            this.commit = commit;
            this.epoch = epoch;
        }

        CompletableFuture<CasOutcome> attempt(int attempt) {
            if (attempt > ATTEMPTS_MAX) {
                String message = "contention: " + ATTEMPTS_MAX + " attempts lost to concurrent conditional writes of the key";
                return done(ambiguous ? new CasOutcome.Unknown(message + "; an earlier attempt may have been applied, read the key")
                        : new CasOutcome.NotWritten(message + ", nothing was written; retry"));
            }
            if (epochNow() != epoch) {
                // The replicas refuse this run's epoch from now on, and the key's replica set may have changed.
                return start(key, condition, write, params, attempt, this);
            }
            long ballot = clock.now();
            Optional<String> refusal = clockSkew == null ? Optional.empty() : clockSkew.stampRefusal(ballot);
            if (refusal.isPresent()) {
                return ambiguous ? done(new CasOutcome.Unknown(refusal.get()))
                        : CompletableFuture.failedFuture(new ClockRefusedException(refusal.get()));
            }
            List<CompletableFuture<PaxosMessages.Promise>> calls = new ArrayList<>(nodes.size());
            for (ClusterNode node : nodes) {
                calls.add(peers.apply(node).prepare(key, ballot, epoch));
            }
            return QuorumTally.of(calls, quorum, PaxosMessages.Promise::granted)
                    .thenComposeAsync(round -> afterPrepare(attempt, ballot, round), executor);
        }

        private CompletableFuture<CasOutcome> afterPrepare(int attempt, long ballot, QuorumTally.Result<PaxosMessages.Promise> round) {
            for (PaxosMessages.Promise promise : round.refused()) {
                observe(promise.promised());
            }
            if (!round.reached()) {
                if (round.refused().isEmpty()) {
                    return afterFailedRound("prepare", attempt, round);
                }
                return retryAfterBackoff(attempt);
            }
            Optional<Record> current = round.granted().stream().flatMap(promise -> promise.current().stream())
                    .max(Comparator.comparingLong(Record::timestamp));
            // Paxos's rule, by accepted ballots: the proposal the quorum accepted at the highest ballot is the
            // only one that may have been chosen since the last commit this quorum saw. Unless a replica that
            // accepted it at that ballot holds it already (committed, or overtaken by a newer write, which the
            // read below then sees), finish it first. Record stamps do not order acceptances: a finished
            // proposal keeps its first stamp but is accepted again at the finisher's ballot.
            long latestBallot = round.granted().stream().mapToLong(PaxosMessages.Promise::acceptedBallot).max().orElse(0);
            if (latestBallot != 0 && round.granted().stream().noneMatch(promise -> promise.committed()
                    && promise.acceptedBallot() == latestBallot)) {
                // Not committed at any replica that reports it: each of those carries its record.
                Record latest = round.granted().stream().filter(promise -> promise.acceptedBallot() == latestBallot)
                        .findFirst().orElseThrow().accepted();
                return finishEarlier(attempt, ballot, latest);
            }
            current.ifPresent(record -> observe(record.timestamp()));
            if (current.isPresent() && proposed.containsKey(current.get().timestamp())) {
                // Another proposer finished this run's proposal: it was chosen. Commit it again for the acks.
                return commitOwn(proposed.get(current.get().timestamp()));
            }
            Optional<Record> live = current.filter(record -> record.liveAt(clock.physicalMillis()));
            if (!condition.holds(live)) {
                return done(ambiguous
                        ? new CasOutcome.Unknown("an earlier attempt of this conditional write may have been applied before"
                                + " the key changed again; read the key")
                        : new CasOutcome.Refused(live));
            }
            if (current.isPresent() && current.get().timestamp() >= ballot) {
                // A write stamped after this ballot (a plain write by a faster clock): stamp above it.
                return attempt(attempt + 1);
            }
            Record record = write.apply(ballot);
            proposed.put(ballot, record);
            return propose(ballot, record).thenComposeAsync(accepted -> {
                if (accepted.reached()) {
                    return commitOwn(record);
                }
                ambiguous |= !accepted.granted().isEmpty() || accepted.failed() > 0
                        || accepted.granted().size() + accepted.refused().size() + accepted.failed() < nodes.size();
                for (PaxosMessages.Accepted refused : accepted.refused()) {
                    observe(refused.promised());
                }
                return accepted.refused().isEmpty() ? afterFailedRound("accept", attempt, accepted) : retryAfterBackoff(attempt);
            }, executor);
        }

        /** Proposes an earlier, unfinished proposal's record again at this ballot, commits it, and starts over. */
        private CompletableFuture<CasOutcome> finishEarlier(int attempt, long ballot, Record earlier) {
            return propose(ballot, earlier).thenComposeAsync(accepted -> {
                for (PaxosMessages.Accepted refused : accepted.refused()) {
                    observe(refused.promised());
                }
                if (!accepted.reached()) {
                    return accepted.refused().isEmpty() ? afterFailedRound("accept", attempt, accepted) : retryAfterBackoff(attempt);
                }
                if (proposed.containsKey(earlier.timestamp())) {
                    return commitOwn(earlier);
                }
                return coordinator.startWrite(key, earlier, new ReplicationParams(quorum, nodes.size())).result()
                        .thenComposeAsync(outcome -> outcome instanceof NotEnoughReplicas
                                ? retryAfterBackoff(attempt) : attempt(attempt + 1), executor);
            }, executor);
        }

        private CompletableFuture<QuorumTally.Result<PaxosMessages.Accepted>> propose(long ballot, Record record) {
            List<CompletableFuture<PaxosMessages.Accepted>> calls = new ArrayList<>(nodes.size());
            for (ClusterNode node : nodes) {
                calls.add(peers.apply(node).accept(key, ballot, record, epoch));
            }
            return QuorumTally.of(calls, quorum, PaxosMessages.Accepted::granted);
        }

        /** Commits this run's chosen record: stored on {@code ack} replicas, it is applied. */
        private CompletableFuture<CasOutcome> commitOwn(Record record) {
            return coordinator.startWrite(key, record, commit).result().thenApply(outcome -> outcome instanceof NotEnoughReplicas short_
                    ? new CasOutcome.Unknown("the conditional write was chosen but " + short_.message()
                            + "; it is stored where it reached and completed by the key's next conditional write")
                    : new CasOutcome.Applied(record));
        }

        private CompletableFuture<CasOutcome> retryAfterBackoff(int attempt) {
            int ceiling = Math.min(BACKOFF_MILLIS_MAX, 1 << Math.min(attempt, 6));
            long pause = 1 + ThreadLocalRandom.current().nextLong(ceiling);
            Executor later = CompletableFuture.delayedExecutor(pause, TimeUnit.MILLISECONDS, executor);
            return CompletableFuture.supplyAsync(() -> attempt(attempt + 1), later).thenCompose(next -> next);
        }

        /**
         * A round that too few replicas answered. Replicas that refused this run's epoch fail it
         * too (they are not told apart from a timeout): once this node knows their newer epoch, the
         * write starts again under it; otherwise it is unavailable.
         */
        private CompletableFuture<CasOutcome> afterFailedRound(String phase, int attempt, QuorumTally.Result<?> round) {
            return epochNow() != epoch ? attempt(attempt + 1) : unavailable(phase, round);
        }

        private CompletableFuture<CasOutcome> unavailable(String phase, QuorumTally.Result<?> round) {
            String message = "not enough replicas for a conditional write: " + round.granted().size() + " of " + nodes.size()
                    + " answered the " + phase + ", " + quorum + " needed (" + round.failed() + " failed)";
            return done(ambiguous || phase.equals("accept") ? new CasOutcome.Unknown(message + "; read the key")
                    : new CasOutcome.NotWritten(message + ", nothing was written"));
        }

        /** Takes in a ballot or timestamp a peer reported, unless it is beyond the clock bound. */
        private void observe(long timestamp) {
            if (clockSkew == null || !clock.isAheadBy(timestamp, clockSkew.boundMillis())) {
                clock.observe(timestamp);
            } else {
                LOG.warn("a replica reported {} for a conditional write, beyond the clock bound; not observed",
                        HybridLogicalClock.format(timestamp));
            }
        }
    }

    private static CompletableFuture<CasOutcome> done(CasOutcome outcome) {
        return CompletableFuture.completedFuture(outcome);
    }
}
