package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.Record;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Coordinates replicated operations for the public API: this node accepts a request for any key
 * and runs it against the key's replicas ({@link RendezvousPlacement}).
 *
 * <ul>
 *   <li>Writes are stamped once, here, with the node's {@link HybridLogicalClock}; every replica
 *       stores the same record, so replicas converge by timestamp whatever order writes arrive.
 *   <li>Every one of the {@code from} replicas is asked in parallel; the answer comes as soon as
 *       {@code ack} succeeded, or as soon as more than {@code from - ack} failed, or at the
 *       deadline, whichever is first. Slow replicas are not waited for.
 *   <li>A GET answers with the freshest record among the first {@code ack} successful answers;
 *       a tombstone reads as not found, and so does a record whose expiry this node's clock
 *       ({@link HybridLogicalClock#physicalMillis}) has reached. Timestamps seen are observed into
 *       the clock. Replicas found stale are repaired in the background once every replica has
 *       answered, with the freshest record as it is, expired or not: it is the newest version.
 *   <li>A write with a time to live stores its expiry in the record, computed here from the
 *       write's timestamp ({@link Ttl#expiresAtMillis}), so one write has one expiry everywhere.
 *   <li>Failures of replicas (timeouts, refused connections, 5xx, storage errors) are counted,
 *       never thrown: the returned futures complete normally, with {@link NotEnoughReplicas}
 *       when fewer than {@code ack} succeeded.
 * </ul>
 *
 * <p>Threading: thread-safe and stateless between operations. Call from the node's handler
 * executor: the local replica's storage call runs on the calling thread. The returned future may
 * already be complete (e.g. {@code ack=1} answered by the local replica) or complete later on the
 * inter-node client's executor or the settings' executor.
 */
public final class Coordinator {

    /** How many times a write that replicas found stale is stamped again before the client gets {@code 504}. */
    static final int RESTAMPS_MAX = 3;

    private final ClusterNodes topology;
    /** One replica per member seen so far; a member that joins gets one from {@link #newMember} on first use. */
    private final Map<ClusterNode, Replica> replicas;
    private final java.util.function.Function<ClusterNode, Replica> newMember;
    private final HybridLogicalClock clock;
    private final CoordinatorSettings settings;
    private final DeadlineQueue deadlines;
    /** Asks a read's spare replicas when its first ones were slow; null when reads ask every replica at once. */
    private final DeadlineQueue spareDelays;
    private final MissedWriteListener missedWrites;
    private final ClockSkew clockSkew;
    private final ReplicaCallListener calls;

    /**
     * @param replicas one replica per node of {@code topology}: a {@link LocalReplica} for self,
     *                 a {@link RemoteReplica} for every other node ({@link #replicasFor} builds them)
     */
    public Coordinator(ClusterNodes topology, Map<ClusterNode, Replica> replicas, HybridLogicalClock clock,
                       CoordinatorSettings settings) {
        this(topology, replicas, clock, settings, MissedWriteListener.NONE, null);
    }

    /**
     * @param missedWrites told of every replica that did not acknowledge a write ({@link HintedHandoff})
     * @param clockSkew    refuses writes while this node's clock is behind its peers', and bounds the
     *                     timestamps observed from replicas' answers; null for neither (tests)
     */
    public Coordinator(ClusterNodes topology, Map<ClusterNode, Replica> replicas, HybridLogicalClock clock,
                       CoordinatorSettings settings, MissedWriteListener missedWrites, ClockSkew clockSkew) {
        this(topology, replicas, clock, settings, missedWrites, clockSkew, ReplicaCallListener.NONE);
    }

    /** @param calls told of every remote replica call's outcome (metrics, peer health) */
    public Coordinator(ClusterNodes topology, Map<ClusterNode, Replica> replicas, HybridLogicalClock clock,
                       CoordinatorSettings settings, MissedWriteListener missedWrites, ClockSkew clockSkew,
                       ReplicaCallListener calls) {
        this(topology, replicas, node -> {
            throw new IllegalStateException("no replica for " + node.id() + ", which is not of the cluster this coordinator was made for");
        }, clock, settings, missedWrites, clockSkew, calls);
    }

    /**
     * @param newMember makes the replica of a member that joined after this coordinator was made
     *                  (called once per member, from any thread)
     */
    public Coordinator(ClusterNodes topology, Map<ClusterNode, Replica> replicas,
                       java.util.function.Function<ClusterNode, Replica> newMember, HybridLogicalClock clock,
                       CoordinatorSettings settings, MissedWriteListener missedWrites, ClockSkew clockSkew,
                       ReplicaCallListener calls) {
        this.calls = calls;
        this.newMember = newMember;
        for (ClusterNode node : topology.all()) {
            if (!replicas.containsKey(node)) {
                throw new IllegalArgumentException("no replica given for node " + node);
            }
        }
        this.topology = topology;
        this.replicas = new java.util.concurrent.ConcurrentHashMap<>(replicas);
        this.clock = clock;
        this.settings = settings;
        this.deadlines = new DeadlineQueue(settings.deadline(), settings.executor());
        this.spareDelays = settings.readSpareDelay().isZero() ? null : new DeadlineQueue(settings.readSpareDelay(), settings.executor());
        this.missedWrites = missedWrites;
        this.clockSkew = clockSkew;
    }

    /** The usual replicas: the local engine for self, the inter-node client for the others, one request per write. */
    public static Map<ClusterNode, Replica> replicasFor(ClusterNodes topology, Replica local, ReplicaClient client) {
        return replicasFor(topology, local, client, 0);
    }

    /**
     * As above, with reads and writes to each peer batched ({@link RemoteReplica#RemoteReplica(ClusterNode,
     * ReplicaClient, int)}); share the map between the users of one peer's batches.
     */
    public static Map<ClusterNode, Replica> replicasFor(ClusterNodes topology, Replica local, ReplicaClient client,
                                                        int batchesInFlight) {
        Map<ClusterNode, Replica> replicas = new java.util.concurrent.ConcurrentHashMap<>();
        for (ClusterNode node : topology.all()) {
            replicas.put(node, topology.isSelf(node) ? local : new RemoteReplica(node, client, batchesInFlight));
        }
        return replicas;
    }

    /** Fails with {@link ClockRefusedException} while this node cannot trust its clock ({@link ClockSkew#writeRefusal}, {@link ClockSkew#stampRefusal}). */
    public CompletableFuture<WriteOutcome> put(byte[] key, byte[] value, ReplicationParams params) {
        return whenClockTrusted(() -> writeIfStampTrusted(key, Record.value(clock.now(), value), params));
    }

    /**
     * As {@link #put(byte[], byte[], ReplicationParams)}, for a value that reads as absent from
     * {@code ttl} after the write's timestamp on.
     */
    public CompletableFuture<WriteOutcome> put(byte[] key, byte[] value, Ttl ttl, ReplicationParams params) {
        return whenClockTrusted(() -> {
            long timestamp = clock.now();
            return writeIfStampTrusted(key, Record.expiring(timestamp, value, ttl.expiresAtMillis(timestamp)), params);
        });
    }

    /** Fails with {@link ClockRefusedException} while this node cannot trust its clock ({@link ClockSkew#writeRefusal}, {@link ClockSkew#stampRefusal}). */
    public CompletableFuture<WriteOutcome> delete(byte[] key, ReplicationParams params) {
        return whenClockTrusted(() -> writeIfStampTrusted(key, Record.tombstone(clock.now()), params));
    }

    /**
     * Runs {@code write} (stamping inside it) when this node may stamp writes. The usual case costs
     * one check; a clock not yet confirmed (peers just started) gets one measurement round first,
     * and the write then runs on the executor, never on the network thread that ended the round.
     */
    private CompletableFuture<WriteOutcome> whenClockTrusted(java.util.function.Supplier<CompletableFuture<WriteOutcome>> write) {
        Optional<String> refusal = clockSkew == null ? Optional.empty() : clockSkew.writeRefusal();
        if (refusal.isEmpty()) {
            return write.get();
        }
        return clockSkew.writeRefusalAfterMeasuring().thenComposeAsync(again -> again.isPresent()
                ? CompletableFuture.failedFuture(new ClockRefusedException(again.get())) : write.get(), settings.executor());
    }

    /**
     * Runs the write of a record stamped just now unless its stamp cannot be trusted after all
     * ({@link ClockSkew#stampRefusal}: the wall clock stepped between the check and the stamp, or
     * the stamp is further ahead of this node's wall clock than the bound).
     */
    private CompletableFuture<WriteOutcome> writeIfStampTrusted(byte[] key, Record record, ReplicationParams params) {
        Optional<String> refusal = stampRefusal(record);
        return refusal.isPresent() ? CompletableFuture.failedFuture(new ClockRefusedException(refusal.get()))
                : write(key, record, params, RESTAMPS_MAX);
    }

    private Optional<String> stampRefusal(Record record) {
        return clockSkew == null ? Optional.empty() : clockSkew.stampRefusal(record.timestamp());
    }

    /**
     * The freshest record the first {@code ack} answers hold; not found when it is a tombstone or has
     * expired by {@link #expiryClockMillis()}, read once the read is decided.
     */
    public CompletableFuture<ReadOutcome> get(byte[] key, ReplicationParams params) {
        return startRead(key, params).result().thenApply(outcome -> unlessExpired((ReadOutcome) outcome));
    }

    private ReadOutcome unlessExpired(ReadOutcome outcome) {
        if (outcome instanceof ReadOutcome.Found found && found.record().expires()
                && found.record().expiredAt(expiryClockMillis())) {
            return new ReadOutcome.NotFound();
        }
        return outcome;
    }

    /**
     * The time this node judges expiry by, epoch millis: its hybrid clock's physical time, which is
     * its wall clock or, when later, the time of the last timestamp it issued or took in
     * ({@link HybridLogicalClock#physicalMillis}). Read, never advanced.
     */
    public long expiryClockMillis() {
        return clock.physicalMillis();
    }

    /** The cluster this coordinator routes over. */
    public ClusterNodes topology() {
        return topology;
    }

    /** The replica this coordinator calls for {@code node}, made now for a member that joined since. */
    public Replica replica(ClusterNode node) {
        Replica replica = replicas.get(node);
        return replica != null ? replica : replicas.computeIfAbsent(node, newMember);
    }

    /** Visible for tests that wait for read repair ({@link ReplicatedOperation#done()}). */
    ReplicatedOperation startRead(byte[] key, ReplicationParams params) {
        return start(key, null, params);
    }

    ReplicatedOperation startWrite(byte[] key, Record record, ReplicationParams params) {
        return start(key, record, params);
    }

    /**
     * Runs the write; when it fell short of its quorum because replicas kept fresher records, stamps
     * it again above the freshest of them and runs it again (at most {@code restamps} more times).
     * Quorums intersect, so a write acknowledged before this one was stamped is held by at least one
     * replica of any quorum this one could get: stamped below it, this write cannot be acknowledged
     * and lose to it afterwards; stamped again, it wins.
     */
    private CompletableFuture<WriteOutcome> write(byte[] key, Record record, ReplicationParams params, int restamps) {
        ReplicatedOperation operation = startWrite(key, record, params);
        return operation.result().thenCompose(outcome -> {
            long fresher = operation.fresherKept();
            if (!(outcome instanceof NotEnoughReplicas) || fresher == 0 || restamps == 0
                    || clock.isAheadBy(fresher, boundMillis())) {
                // A record further ahead than the bound cannot be followed: stamping above it would make
                // this write one every peer refuses. The client gets 504 (unknown), as for any shortfall.
                return CompletableFuture.completedFuture((WriteOutcome) outcome);
            }
            clock.observe(fresher);
            Record again = restamped(record, clock.now());
            if (stampRefusal(again).isPresent()) {
                // Replicas may hold the first attempt: the client must get the shortfall (504, unknown),
                // not a refusal (503 says nothing was stored).
                return CompletableFuture.completedFuture((WriteOutcome) outcome);
            }
            // The reply that decided may have come on a network thread; the local replica's write must not run there.
            try {
                return CompletableFuture.supplyAsync(() -> write(key, again, params, restamps - 1), settings.executor())
                        .thenCompose(next -> next);
            } catch (RejectedExecutionException shuttingDown) {
                return CompletableFuture.completedFuture((WriteOutcome) outcome);
            }
        });
    }

    /**
     * The same write stamped {@code timestamp}: a value, a tombstone, or a value that keeps its time
     * to live, counted again from the new stamp.
     */
    private static Record restamped(Record record, long timestamp) {
        if (record.tombstone()) {
            return Record.tombstone(timestamp);
        }
        if (!record.expires()) {
            return Record.value(timestamp, record.value());
        }
        long ttlMillis = record.expiresAtMillis() - HybridLogicalClock.millisOf(record.timestamp());
        return Record.expiring(timestamp, record.value(), HybridLogicalClock.millisOf(timestamp) + ttlMillis);
    }

    private long boundMillis() {
        return clockSkew == null ? Long.MAX_VALUE : clockSkew.boundMillis();
    }

    /**
     * Routes by the membership view of this moment: reads ask the key's owners; writes go to its
     * owners and, while a member joins or leaves, to its pending replicas too, and then need
     * {@code ack} of the owners and {@code ack} of the future owners ({@link MembershipView#writeSet}).
     */
    private ReplicatedOperation start(byte[] key, Record record, ReplicationParams params) {
        MembershipView view = topology.view();
        RendezvousPlacement placement = view.placement();
        if (params.from() > placement.clusterSize()) {
            throw new IllegalArgumentException("from=" + params.from() + " exceeds the cluster size " + placement.clusterSize());
        }
        List<ClusterNode> nodes = placement.replicas(key, params.from());
        if (record == null && spareDelays != null && params.ack() < nodes.size()) {
            List<Replica> ordered = readOrder(nodes, params.ack());
            return new ReplicatedOperation(key, null, ordered, params.ack(), params.ack(), clock, missedWrites, boundMillis(),
                    calls, topology.self(), view.epoch())
                    .start(deadlines, spareDelays, settings.executor());
        }
        if (record != null && view.changing()) {
            MembershipView.WriteSet writes = view.writeSet(key, nodes, params.from(), params.ack());
            return new ReplicatedOperation(key, record, localLast(writes.nodes()), writes, clock, missedWrites, boundMillis(),
                    calls, topology.self(), view.epoch())
                    .start(deadlines, settings.executor());
        }
        // Every request outside a change: one group, and no write set to allocate.
        return new ReplicatedOperation(key, record, localLast(nodes), nodes.size(), params.ack(), clock, missedWrites,
                boundMillis(), calls, topology.self(), view.epoch())
                .start(deadlines, settings.executor());
    }

    /**
     * A read's replicas in the order they are asked: the first {@code ack} are asked at once (this
     * node's own replica among them when it holds the key, last of them so that remote I/O overlaps
     * its disk read; the others in placement order, so each key's reads go to the same peers and
     * the load spreads over keys), then the spares in placement order.
     */
    private List<Replica> readOrder(List<ClusterNode> nodes, int ack) {
        List<Replica> ordered = new ArrayList<>(nodes.size());
        boolean holdsKey = nodes.stream().anyMatch(topology::isSelf);
        int remoteFirst = holdsKey ? ack - 1 : ack;
        List<Replica> spares = new ArrayList<>(nodes.size());
        for (ClusterNode node : nodes) {
            if (topology.isSelf(node)) {
                continue;
            }
            (ordered.size() < remoteFirst ? ordered : spares).add(replica(node));
        }
        if (holdsKey) {
            ordered.add(replica(topology.self()));
        }
        ordered.addAll(spares);
        return ordered;
    }

    /** Remote requests go out first so that their network time overlaps the local disk write. */
    private List<Replica> localLast(List<ClusterNode> nodes) {
        List<Replica> ordered = new ArrayList<>(nodes.size());
        Replica local = null;
        for (ClusterNode node : nodes) {
            if (topology.isSelf(node)) {
                local = replica(node);
            } else {
                ordered.add(replica(node));
            }
        }
        if (local != null) {
            ordered.add(local);
        }
        return ordered;
    }
}
