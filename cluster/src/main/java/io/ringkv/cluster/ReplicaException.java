package io.ringkv.cluster;

import java.io.IOException;

/**
 * A remote replica answered, but not with a result: an unexpected status (5xx, 403 for a wrong
 * cluster token) or a malformed answer. Counted as a failed reply by the coordinator. A refusal of
 * what the request carried is the subclass {@link RecordsRefusedException}.
 */
public class ReplicaException extends IOException {
    public ReplicaException(ClusterNode node, String reason) {
        super(node + ": " + reason);
    }

    public ReplicaException(ClusterNode node, String reason, Throwable cause) {
        super(node + ": " + reason, cause);
    }
}
