package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.PaxosState;
import io.ringkv.store.PaxosStateLog;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

/**
 * This replica's part in each key's compare-and-set: the acceptor of single-decree Paxos, one
 * instance per key, its state ({@link PaxosState}) kept in the store's {@link PaxosStateLog} and
 * written there before any answer, so a promise or acceptance survives the process.
 *
 * <ul>
 *   <li>{@link #prepare}: promises a ballot above every one promised so far, and tells the
 *       proposer the replica's current record (its version, not its value) and the proposal it
 *       accepted last, with its ballot, and whether the current record is that proposal's or
 *       newer (committed here, or overtaken); the proposal's record only when it is not, as only
 *       then may a proposer have to finish it. The proposer compares accepted <em>ballots</em>
 *       across the quorum: a proposal finished by a later proposer keeps its first stamp but is
 *       accepted at the later ballot, so the stamps of records do not order acceptances. A
 *       proposal whose record is older than the tombstone grace period is left out: the record
 *       that superseded it may have been a tombstone, or a value that expired, since collected
 *       ({@link TombstoneCollector}), and finishing the old proposal then would bring back a
 *       value that was deleted.
 *   <li>{@link #accept}: accepts a proposal whose ballot is at least the promise.
 * </ul>
 * Both take the metadata epoch the proposer's round was started under, and refuse it
 * ({@link PaxosEpochException}, before the state is read) when this node's view of the members has
 * another epoch or a change in progress: a round's replicas are the key's owners at its epoch, and
 * rounds under two different owner sets could each win a majority of their own. The check and the
 * state's write happen under the key's lock; a view that moves on between them (a moment) lets
 * that one message through under the epoch it was checked at.
 * Commits do not come here: a chosen proposal is written to the replicas as an ordinary replicated
 * write, whose timestamp is its ballot, so it orders after everything the proposer read.
 *
 * <p>Threading: thread-safe. A key's read and write of its state happen under one of a fixed set
 * of locks chosen by the key's hash; calls block on disk I/O (call them on the handler executor).
 */
final class PaxosAcceptor implements TombstoneCollector.AlsoCollected {
    private static final int LOCK_STRIPES = 256;
    /** Keys per page of a purge's scan: one page's keys are on the heap at a time. */
    private static final int PURGE_PAGE = 1_024;
    /** The epoch of a round whose proposer holds no metadata: no epoch is checked. */
    static final long NO_EPOCH = -1;

    private final StorageEngine engine;
    private final PaxosStateLog states;
    private final ReentrantLock[] locks = new ReentrantLock[LOCK_STRIPES];
    private final LongPredicate pastGrace;
    /** This node's view of the members; null: no epoch is checked (a node without metadata). */
    private final Supplier<MembershipView> view;

    /** An acceptor that reports accepted proposals of any age (a store whose tombstones are never collected) and checks no epoch. */
    PaxosAcceptor(StorageEngine engine) {
        this(engine, timestamp -> false, null);
    }

    /**
     * @param pastGrace whether a timestamp is older than the tombstone grace period ({@link TombstoneCollector#mayBeCollectedElsewhere})
     * @param view      this node's view of the members, which a round's epoch must match; null for none
     */
    PaxosAcceptor(StorageEngine engine, LongPredicate pastGrace, Supplier<MembershipView> view) {
        this.engine = engine;
        this.pastGrace = pastGrace;
        this.view = view;
        this.states = engine.paxos();
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    /** @param roundEpoch the metadata epoch the round was started under; {@link #NO_EPOCH}: none, nothing checked */
    PaxosMessages.Promise prepare(byte[] key, long ballot, long roundEpoch) throws StoreException, PaxosEpochException {
        ReentrantLock lock = lockOf(key);
        lock.lock();
        try {
            requireRoundEpoch(roundEpoch);
            PaxosState state = states.get(key);
            Optional<Record> current = engine.get(key);
            boolean granted = ballot > state.promised();
            if (granted) {
                state = new PaxosState(ballot, state.acceptedBallot(), state.accepted());
                states.put(key, state);
            }
            Optional<Record> version = current.map(PaxosAcceptor::versionOf);
            Record accepted = state.accepted();
            if (accepted == null || pastGrace.test(accepted.timestamp())) {
                return new PaxosMessages.Promise(granted, state.promised(), version, 0, null, false);
            }
            boolean committed = current.isPresent() && current.get().timestamp() >= accepted.timestamp();
            return new PaxosMessages.Promise(granted, state.promised(), version, state.acceptedBallot(),
                    committed ? null : accepted, committed);
        } finally {
            lock.unlock();
        }
    }

    /** @param roundEpoch as for {@link #prepare(byte[], long, long)} */
    PaxosMessages.Accepted accept(byte[] key, long ballot, Record record, long roundEpoch) throws StoreException, PaxosEpochException {
        ReentrantLock lock = lockOf(key);
        lock.lock();
        try {
            requireRoundEpoch(roundEpoch);
            PaxosState state = states.get(key);
            if (ballot < state.promised()) {
                return new PaxosMessages.Accepted(false, state.promised());
            }
            states.put(key, new PaxosState(ballot, ballot, record));
            return new PaxosMessages.Accepted(true, ballot);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes every key's state whose promise is older than {@code horizonMillis} (physical time of
     * its ballot): the same horizon past which {@link #prepare} no longer reports an acceptance,
     * so nothing a proposer could learn goes with it. A ballot that old could only come from a
     * proposer whose clock is off by more than the grace period, which the clock bound refuses
     * long before. Each removal happens under the key's lock after reading the state again, so a
     * promise made meanwhile stays. A state that does not decode is left alone (and logged by the
     * read that meets it).
     *
     * @return the states removed
     */
    @Override
    public int purgeDeadBefore(long horizonMillis) throws StoreException {
        int removed = 0;
        byte[] from = new byte[0];
        while (true) {
            List<PaxosStateLog.Promised> page = states.promisedFrom(from, PURGE_PAGE);
            for (PaxosStateLog.Promised entry : page) {
                if (entry.promised() > 0 && HybridLogicalClock.millisOf(entry.promised()) < horizonMillis
                        && removeIfPromisedBefore(entry.key(), horizonMillis)) {
                    removed++;
                }
            }
            if (page.size() < PURGE_PAGE) {
                return removed;
            }
            byte[] last = page.get(page.size() - 1).key();
            from = Arrays.copyOf(last, last.length + 1); // the smallest key after the last one
        }
    }

    private boolean removeIfPromisedBefore(byte[] key, long horizonMillis) throws StoreException {
        ReentrantLock lock = lockOf(key);
        lock.lock();
        try {
            PaxosState state = states.get(key);
            if (state.promised() == 0 || HybridLogicalClock.millisOf(state.promised()) >= horizonMillis) {
                return false;
            }
            states.remove(key);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Refuses a round started under other metadata than this node's, or while a member joins or
     * leaves. Not checked when either side holds no metadata yet (epoch 0: a node of a new cluster
     * routes by its {@code --cluster} list until it has applied the first entry, which the nodes
     * do at different moments; refusing such a round failed conditional writes in a new
     * cluster's first second) or the round names none.
     */
    private void requireRoundEpoch(long roundEpoch) throws PaxosEpochException {
        MembershipView now = view == null ? null : view.get();
        if (now == null || now.epoch() == 0 || roundEpoch == NO_EPOCH || roundEpoch == 0) {
            return;
        }
        if (now.changing()) {
            throw new PaxosEpochException(MembershipChangeException.conditionalWritesRefused(now.epoch()));
        }
        if (roundEpoch != now.epoch()) {
            throw new PaxosEpochException("this conditional write's round was started under cluster metadata epoch " + roundEpoch
                    + " and this replica knows epoch " + now.epoch() + " (the key's replicas may differ); retry");
        }
    }

    /** The record without its value: what a proposer needs to judge a condition. */
    private static Record versionOf(Record record) {
        return record.tombstone() ? record : new Record(record.timestamp(), false, new byte[0], record.expiresAtMillis());
    }

    private ReentrantLock lockOf(byte[] key) {
        int hash = Arrays.hashCode(key);
        return locks[(hash ^ hash >>> 16) & (LOCK_STRIPES - 1)];
    }
}
