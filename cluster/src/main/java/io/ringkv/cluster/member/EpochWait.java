package io.ringkv.cluster.member;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.SignedCalls;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Waits until each of some members knows a metadata epoch: it asks each for its cleanup status, a
 * cheap signed request whose answer names the member's epoch, and which carries this node's, so a
 * member behind catches up at once. A member that does not answer is asked again until it does:
 * a membership step must not go on while a coordinator could still route by the view before it.
 *
 * <p>Stateless; blocks the calling thread (a membership step's).
 */
final class EpochWait {

    private EpochWait() {
    }

    /**
     * Returns once every one of {@code members} answered with an epoch of at least {@code epoch}.
     *
     * @param stop checked between rounds: true ends the wait with an {@link InterruptedException}
     */
    static void until(SignedCalls calls, List<ClusterNode> members, long epoch, BooleanSupplier stop)
            throws InterruptedException {
        List<ClusterNode> behind = new ArrayList<>(members);
        while (true) {
            for (ClusterNode member : List.copyOf(behind)) {
                if (knows(calls, member, epoch)) {
                    behind.remove(member);
                }
            }
            if (behind.isEmpty()) {
                return;
            }
            if (stop.getAsBoolean()) {
                throw new InterruptedException("stopped while waiting for " + behind + " to know epoch " + epoch);
            }
            Thread.sleep(RemoteRun.POLL.toMillis());
        }
    }

    private static boolean knows(SignedCalls calls, ClusterNode member, long epoch) throws InterruptedException {
        try {
            SignedCalls.Answer answer = calls.call(member.id(), "GET", InternalProtocol.CLEANUP_PATH, new byte[0],
                    MembershipCalls.CALL_TIMEOUT).get(MembershipCalls.CALL_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
            return answer.status() == 200 && answer.epoch() >= epoch;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }
}
