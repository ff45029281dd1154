package io.ringkv.cluster;

/**
 * How many replicas must acknowledge ({@code ack}) out of how many are asked ({@code from}):
 * the public API's {@code replicas=ack/from} parameter.
 *
 * @param ack  replicas whose answer completes the request, {@code 1 <= ack <= from}
 * @param from replicas the request goes to, {@code from <= cluster size}: the key's first
 *             {@code from} nodes in rendezvous order, its owners first ({@link RendezvousPlacement})
 */
public record ReplicationParams(int ack, int from) {

    /** Longest accepted parameter; anything longer is malformed (and would overflow an int). */
    private static final int PARAM_CHARS_MAX = 21;

    public ReplicationParams {
        if (ack < 1 || from < 1 || ack > from) {
            throw new IllegalArgumentException("need 1 <= ack <= from, got " + ack + "/" + from);
        }
    }

    /**
     * The default under replication factor {@code rf}: the key's {@code rf} owners are asked, a
     * majority of them acknowledges (1/1, 2/2, 2/3, 3/5).
     */
    public static ReplicationParams defaultFor(int rf) {
        return new ReplicationParams(quorum(rf), rf);
    }

    /** A strict majority: 1/1, 2/2, 2/3, 3/4, 3/5, 4/6. */
    public static int quorum(int n) {
        return n / 2 + 1;
    }

    /**
     * Parses {@code replicas=ack/from} (ASCII digits, one slash, nothing else).
     *
     * @param replicasParam the decoded query parameter, or {@code null} when it was absent
     *                      (then the default; an empty value is malformed, not absent)
     * @throws InvalidReplicasException with a message fit for a {@code 400} body
     */
    public static ReplicationParams parse(String replicasParam, int clusterSize) {
        return parse(replicasParam, clusterSize, clusterSize);
    }

    /**
     * As {@link #parse(String, int)}, with the default taken from the replication factor
     * ({@link #defaultFor}); an explicit {@code from} may still name up to every node of the cluster.
     */
    public static ReplicationParams parse(String replicasParam, int clusterSize, int replicationFactor) {
        if (replicasParam == null) {
            return defaultFor(replicationFactor);
        }
        int slash = replicasParam.indexOf('/');
        if (replicasParam.length() > PARAM_CHARS_MAX || slash < 0) {
            throw malformed(replicasParam);
        }
        int ack = parseCount(replicasParam, 0, slash);
        int from = parseCount(replicasParam, slash + 1, replicasParam.length());
        if (ack < 1) {
            throw new InvalidReplicasException("replicas=" + replicasParam + ": ack must be at least 1");
        }
        if (from < 1) {
            throw new InvalidReplicasException("replicas=" + replicasParam + ": from must be at least 1");
        }
        if (ack > from) {
            throw new InvalidReplicasException("replicas=" + replicasParam + ": ack must not exceed from");
        }
        if (from > clusterSize) {
            throw new InvalidReplicasException("replicas=" + replicasParam + ": from must not exceed the "
                    + clusterSize + " node(s) of the cluster");
        }
        return new ReplicationParams(ack, from);
    }

    @Override
    public String toString() {
        return ack + "/" + from;
    }

    private static int parseCount(String param, int start, int end) {
        if (start == end || end - start > 9) {
            throw malformed(param);
        }
        int value = 0;
        for (int i = start; i < end; i++) {
            char c = param.charAt(i);
            if (c < '0' || c > '9') {
                throw malformed(param);
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static InvalidReplicasException malformed(String param) {
        return new InvalidReplicasException("replicas=" + param + " is malformed: expected ack/from, e.g. 2/3");
    }
}
