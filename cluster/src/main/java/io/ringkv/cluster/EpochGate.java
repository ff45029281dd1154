package io.ringkv.cluster;

import io.ringkv.http.server.Response;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The receiver's side of the metadata epoch ({@link InternalProtocol#EPOCH_HEADER}): decides, for
 * an authenticated internal data request, whether this node may answer it with the metadata it
 * knows. An epoch at or below this node's is answered at once, with this node's epoch, which tells
 * a sender behind to catch up. An epoch above it always makes this node catch up
 * ({@link MetadataCatchUp}: a read through the metadata leader). Whether the request waits for
 * that depends on whether its answer depends on this node's metadata:
 * <ul>
 *   <li>Replica reads and writes, record batches and ranges do not: a write is
 *       stored whoever owns the key now (it is a replica write; what a change of owners moves or
 *       drops is the business of anti-entropy and hints per owner), a read returns what this node
 *       holds. They are answered at once while the catch-up runs, so a node behind never fails a
 *       client's request for its lag (losing a metadata voter changes nothing for data requests).
 *   <li>Anti-entropy's digest and versions requests are computed from this node's view of who owns
 *       what, and a Paxos message's round must have this node's epoch ({@link PaxosAcceptor}).
 *       They wait, at most {@link #waitLimit}, until this node knows the sender's epoch, and
 *       are then answered under the new metadata; never under the old one: a node that has not
 *       caught up within the bound answers {@code 503} (retryable, naming both epochs), which costs
 *       the sender's round that one peer. A node that knows no metadata yet (epoch 0: its member of
 *       the group is still starting, or its data was wiped) answers them at once from its
 *       {@code --cluster} list and the sender's {@code rf}, as every node did before the metadata
 *       existed, so a restarted node is repaired at once.
 * </ul>
 *
 * <p>Refusals: a malformed epoch (not 1 to {@value InternalProtocol#EPOCH_DIGITS_MAX} digits) is
 * {@code 400} at once, and so is one more than {@link #EPOCH_LEAD_MAX} above this node's; a waiting
 * request whose epoch is above the one the leader reports is {@code 400} as soon as the read
 * returns (no node can have applied an epoch the leader has not committed); when
 * {@link KnownMetadata#WAITERS_MAX} requests wait already, {@code 503} at once. A request without
 * the field (a tool such as {@code ringkv repair}, which holds no metadata; a node always sends
 * it, and removing it breaks the request's proof) is answered as before.
 *
 * <p>Threading: thread-safe, never blocks: {@link #admit} returns a future, completed on the
 * thread that makes this node know the epoch, on the catch-up's read, or on the JDK's delay
 * thread at the bound; callers move on to their own executor.
 */
public final class EpochGate {

    /** The longest a request from a node ahead waits for this node to catch up. */
    public static final Duration CATCH_UP_WAIT_MAX = Duration.ofSeconds(2);
    /**
     * An epoch further above this node's is refused at once: every metadata change is an operator's
     * or a membership step's, so no cluster comes near it, and no read is made for such a claim.
     */
    public static final long EPOCH_LEAD_MAX = 1_000_000;

    /** Why a request was refused for its epoch, with its metric label. */
    public enum Refusal {
        /** This node did not catch up within the bound (503). */
        BEHIND("behind"),
        /** Too many requests wait for a catch-up already (503). */
        BUSY("busy"),
        /** Not an epoch (400). */
        MALFORMED("malformed"),
        /** Above the epoch the metadata leader reported (400). */
        BEYOND_CLUSTER("beyond_cluster");

        private final String label;

        Refusal(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private final KnownMetadata known;
    private final MetadataCatchUp catchUp;
    private final Duration waitLimit;
    private final LongAdder caughtUp = new LongAdder();
    private final Map<Refusal, LongAdder> refusals = new EnumMap<>(Refusal.class);

    /**
     * @param waitLimit at most {@link #CATCH_UP_WAIT_MAX}; shorter than the senders' request
     *                  timeout, so that they hear the 503 rather than time out
     */
    public EpochGate(MetadataCatchUp catchUp, Duration waitLimit) {
        if (waitLimit.isNegative() || waitLimit.compareTo(CATCH_UP_WAIT_MAX) > 0) {
            throw new IllegalArgumentException("the catch-up wait must be within 0.." + CATCH_UP_WAIT_MAX + ", got " + waitLimit);
        }
        this.catchUp = catchUp;
        this.known = catchUp.known();
        this.waitLimit = waitLimit;
        for (Refusal refusal : Refusal.values()) {
            refusals.put(refusal, new LongAdder());
        }
    }

    /** For a node's cluster: half the replica timeout, at most {@link #CATCH_UP_WAIT_MAX}. */
    public static Duration waitLimitFor(Duration replicaTimeout) {
        Duration half = replicaTimeout.dividedBy(2);
        return half.compareTo(CATCH_UP_WAIT_MAX) < 0 ? half : CATCH_UP_WAIT_MAX;
    }

    /** This node's epoch, for the {@link InternalProtocol#EPOCH_HEADER} of its answers. */
    public long epoch() {
        return known.epoch();
    }

    /**
     * Whether a request whose epoch field is {@code field} (empty when it has none) may be
     * answered: completes with empty when it may, now or once this node caught up, or with the
     * refusal to send instead. A sender ahead always starts a catch-up; only a request whose
     * answer depends on this node's metadata ({@code dependsOnMetadata}) waits for it, and only
     * when this node knows some metadata already (see the class comment).
     */
    public CompletableFuture<Optional<Response>> admit(Optional<String> field, boolean dependsOnMetadata) {
        if (field.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        long wanted;
        try {
            wanted = InternalProtocol.parseEpoch(field.get());
        } catch (IllegalArgumentException e) {
            return refused(Refusal.MALFORMED, Response.text(400, e.getMessage()));
        }
        long mine = known.epoch();
        if (wanted <= mine) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        if (wanted - mine > EPOCH_LEAD_MAX) {
            return refused(Refusal.BEYOND_CLUSTER, Response.text(400, InternalProtocol.EPOCH_HEADER + " " + wanted
                    + " is more than " + EPOCH_LEAD_MAX + " epochs above this node's " + mine + ": no cluster makes that "
                    + "many metadata changes"));
        }
        if (!dependsOnMetadata || mine == 0) {
            catchUp.behind(wanted);
            return CompletableFuture.completedFuture(Optional.empty());
        }
        Optional<CompletableFuture<Void>> waiting = known.await(wanted);
        if (waiting.isEmpty()) {
            return refused(Refusal.BUSY, Response.text(503, KnownMetadata.WAITERS_MAX + " internal requests wait for this "
                    + "node to catch up with the cluster metadata already (it knows epoch " + mine + ", this request was "
                    + "sent at " + wanted + "); retry").withHeader("Retry-After", "1"));
        }
        CompletableFuture<Void> reached = waiting.get();
        CompletableFuture<Outcome> decided = new CompletableFuture<>();
        reached.thenRun(() -> decided.complete(Outcome.CAUGHT_UP));
        catchUp.behindAndWaiting(wanted).thenAccept(leader -> {
            if (leader.epoch() < wanted) {
                decided.complete(new Outcome(Refusal.BEYOND_CLUSTER, leader.epoch()));
            }
        });
        // The JDK's delay thread; the timer is cancelled when the request is decided sooner.
        decided.completeOnTimeout(Outcome.TIMED_OUT, waitLimit.toNanos(), TimeUnit.NANOSECONDS);
        return decided.thenApply(outcome -> {
            reached.cancel(false); // a waiter left behind is forgotten
            if (outcome.refusal() == null) {
                caughtUp.increment();
                return Optional.<Response>empty();
            }
            refusals.get(outcome.refusal()).increment();
            return Optional.of(outcome.refusal() == Refusal.BEHIND ? behind(wanted) : beyond(wanted, outcome.leaderEpoch()));
        });
    }

    /** How a wait ended: caught up (no refusal), or refused; the leader's epoch for {@link Refusal#BEYOND_CLUSTER}. */
    private record Outcome(Refusal refusal, long leaderEpoch) {
        static final Outcome CAUGHT_UP = new Outcome(null, -1);
        static final Outcome TIMED_OUT = new Outcome(Refusal.BEHIND, -1);
    }

    /** Requests from a node ahead that waited and were answered once this node caught up (for the metrics). */
    public long caughtUp() {
        return caughtUp.sum();
    }

    /** Requests refused for their epoch, by reason (for the metrics). */
    public Map<Refusal, Long> refusals() {
        Map<Refusal, Long> counts = new EnumMap<>(Refusal.class);
        refusals.forEach((refusal, count) -> counts.put(refusal, count.sum()));
        return counts;
    }

    /** Catch-ups this node started because a peer's answer named a newer epoch (for the metrics). */
    public long catchUpsFromAnswers() {
        return catchUp.fromAnswers();
    }

    /** Catch-ups this node started because a peer's request named a newer epoch (for the metrics). */
    public long catchUpsFromRequests() {
        return catchUp.fromRequests();
    }

    private Response behind(long wanted) {
        return Response.text(503, "this node knows cluster metadata epoch " + known.epoch() + "; the request was sent at epoch "
                + wanted + " and this node did not catch up within " + waitLimit.toMillis() + " ms (no metadata leader "
                + "reachable?); retry").withHeader("Retry-After", "1");
    }

    private static Response beyond(long wanted, long leaderEpoch) {
        return Response.text(400, InternalProtocol.EPOCH_HEADER + " " + wanted + " is above the cluster's: the metadata "
                + "leader is at epoch " + leaderEpoch);
    }

    private CompletableFuture<Optional<Response>> refused(Refusal refusal, Response answer) {
        refusals.get(refusal).increment();
        return CompletableFuture.completedFuture(Optional.of(answer));
    }
}
