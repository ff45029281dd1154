package io.ringkv.cluster;

/**
 * A request this node does not take while a member joins or leaves: a conditional write, whose
 * Paxos rounds need one fixed set of replicas from their first round to their commit. Nothing
 * was written; the client may retry once the change is done ({@code 503} at the edge).
 */
public final class MembershipChangeException extends RuntimeException {
    public MembershipChangeException(String message) {
        super(message);
    }

    /** Why a conditional write, or a replica's part in one, is refused while the metadata at {@code epoch} has a change in progress. */
    static String conditionalWritesRefused(long epoch) {
        return "a member is joining or leaving the cluster (metadata epoch " + epoch
                + "): conditional writes are refused until it is done; retry then";
    }
}
