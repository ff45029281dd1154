package io.ringkv.cluster;

/**
 * A peer refused a request for what it carried, not for its own state: {@code 413} (a body larger
 * than its {@code --max-body}) or {@code 400} (malformed, or a record stamped further ahead of its
 * clock than the bound). The same request sent again gets the same answer; the peer itself is up
 * and takes other requests, so whoever sends a batch of records splits it to find the one refused.
 */
public final class RecordsRefusedException extends ReplicaException {
    private final int status;

    public RecordsRefusedException(ClusterNode node, String reason, int status) {
        super(node, reason);
        this.status = status;
    }

    /** The peer's status: 400 or 413. */
    public int status() {
        return status;
    }

    /** Whether a peer answering {@code status} refused the request's content rather than failed. */
    static boolean refusesContent(int status) {
        return status == 400 || status == 413;
    }
}
