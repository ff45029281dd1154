package io.ringkv.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Collects the answers of one round of a compare-and-set (prepare or accept) from every replica
 * of the key, and completes as soon as the round is decided: {@code quorum} replicas granted it,
 * or so many refused or failed that it cannot be.
 *
 * <p>Threading: thread-safe; answers arrive on any thread and are counted under this object's
 * lock. {@link #decided()} completes on the thread that delivered the deciding answer (or the
 * caller's, when they were all there already).
 *
 * @param <A> the answer type
 */
final class QuorumTally<A> {

    /** A decided round: the granted answers, the refused ones, and how many replicas failed to answer. */
    record Result<A>(List<A> granted, List<A> refused, int failed, int quorum) {
        boolean reached() {
            return granted.size() >= quorum;
        }
    }

    private final int replicas;
    private final int quorum;
    private final Predicate<A> isGrant;
    private final List<A> granted = new ArrayList<>();
    private final List<A> refused = new ArrayList<>();
    private int failed;
    private final CompletableFuture<Result<A>> decided = new CompletableFuture<>();

    private QuorumTally(int replicas, int quorum, Predicate<A> isGrant) {
        this.replicas = replicas;
        this.quorum = quorum;
        this.isGrant = isGrant;
    }

    /** Counts {@code calls}, one per replica, and completes when the round is decided. */
    static <A> CompletableFuture<Result<A>> of(List<CompletableFuture<A>> calls, int quorum, Predicate<A> isGrant) {
        QuorumTally<A> tally = new QuorumTally<>(calls.size(), quorum, isGrant);
        for (CompletableFuture<A> call : calls) {
            call.whenComplete(tally::count);
        }
        return tally.decided;
    }

    private void count(A answer, Throwable failure) {
        Result<A> result;
        synchronized (this) {
            if (decided.isDone()) {
                return;
            }
            if (failure != null) {
                failed++;
            } else if (isGrant.test(answer)) {
                granted.add(answer);
            } else {
                refused.add(answer);
            }
            boolean done = granted.size() >= quorum || refused.size() + failed > replicas - quorum
                    || granted.size() + refused.size() + failed == replicas;
            if (!done) {
                return;
            }
            result = new Result<>(List.copyOf(granted), List.copyOf(refused), failed, quorum);
        }
        decided.complete(result);
    }
}
