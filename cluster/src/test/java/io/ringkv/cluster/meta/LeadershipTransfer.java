package io.ringkv.cluster.meta;

import java.time.Duration;

/**
 * Hands a metadata group's leadership to a chosen voter, for tests that need a particular member to
 * lead (in production only the {@link VoterReconciler} moves leadership, when the leader loses its vote).
 */
public final class LeadershipTransfer {
    private LeadershipTransfer() {
    }

    /** Asks {@code leader} (it must lead) to hand its leadership to the voter {@code to}; waits until it has. */
    public static void transfer(MetadataGroup leader, String to, Duration timeout) throws Exception {
        leader.transferLeadership(to, timeout);
    }
}
