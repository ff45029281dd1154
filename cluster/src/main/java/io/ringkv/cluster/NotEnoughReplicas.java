package io.ringkv.cluster;

/**
 * Fewer than {@code ack} replicas answered successfully: the node answers
 * {@code 504 Gateway Timeout}. Safe to retry; a write may nevertheless have reached some replicas
 * (fewer than {@code ack}), where it stays and wins or loses by timestamp like any other write.
 *
 * @param successes successful replies when the answer was decided
 * @param failures  failed replies when the answer was decided
 * @param ack       successes that were needed
 * @param from      replicas asked
 * @param timedOut  true when the coordinator's deadline passed first, false when enough
 *                  replicas had failed that success was impossible
 */
public record NotEnoughReplicas(int successes, int failures, int ack, int from, boolean timedOut)
        implements WriteOutcome, ReadOutcome {

    /** A one-line explanation for the {@code 504} body. */
    public String message() {
        return "not enough replicas: " + successes + " of " + from + " answered, " + ack + " needed"
                + (timedOut ? " (deadline passed)" : " (" + failures + " failed)");
    }
}
