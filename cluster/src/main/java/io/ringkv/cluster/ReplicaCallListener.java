package io.ringkv.cluster;

import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.TimeoutException;

/**
 * Told of every call the coordinator made to a remote replica for a client request, once it
 * ended: for metrics, peer health and the slow-replica log. Calls to the local replica are not
 * reported.
 *
 * <p>Threading: called on the thread that completed the call (the inter-node client's executor),
 * concurrently for many calls. Implementations must be fast and must not block; on success they
 * should not allocate, as every replicated request pays for them.
 */
@FunctionalInterface
public interface ReplicaCallListener {

    ReplicaCallListener NONE = (peer, elapsedNanos, failure) -> { };

    /**
     * @param elapsedNanos from the fan-out until the answer or failure
     * @param failure      null when the replica answered (a missing key is an answer)
     */
    void onReplicaCall(ClusterNode peer, long elapsedNanos, Throwable failure);

    /** Both, in order. */
    static ReplicaCallListener both(ReplicaCallListener first, ReplicaCallListener second) {
        return (peer, elapsedNanos, failure) -> {
            first.onReplicaCall(peer, elapsedNanos, failure);
            second.onReplicaCall(peer, elapsedNanos, failure);
        };
    }

    /** Whether a call failed because the peer did not answer in time (rather than refused or answered badly). */
    static boolean isTimeout(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if ((cause instanceof HttpTimeoutException && !(cause instanceof HttpConnectTimeoutException))
                    || cause instanceof TimeoutException) {
                return true;
            }
            if (cause instanceof ConnectException) {
                return false;
            }
        }
        return false;
    }
}
