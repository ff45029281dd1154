package io.ringkv.node;

/**
 * The {@code replicas=ack/from} request parameter: answer once {@code ack} of the key's
 * first {@code from} replicas have answered.
 */
public record ReplicaCount(int ack, int from) {

    /** The default for a cluster of {@code n} nodes: a majority of all of them. */
    public static ReplicaCount quorumOf(int n) {
        return new ReplicaCount(n / 2 + 1, n);
    }

    /**
     * Parses {@code ack/from}; {@code null} means the default.
     *
     * @throws IllegalArgumentException with a message fit for a 400 response
     */
    public static ReplicaCount parse(String text, int clusterSize) {
        if (text == null) {
            return quorumOf(clusterSize);
        }
        int slash = text.indexOf('/');
        if (slash <= 0 || slash == text.length() - 1 || text.indexOf('/', slash + 1) >= 0) {
            throw new IllegalArgumentException("replicas must look like ack/from, e.g. 2/3, got '" + text + "'");
        }
        int ack = parsePositive(text.substring(0, slash), "ack");
        int from = parsePositive(text.substring(slash + 1), "from");
        if (ack > from) {
            throw new IllegalArgumentException("replicas: ack (" + ack + ") must not exceed from (" + from + ")");
        }
        if (from > clusterSize) {
            throw new IllegalArgumentException("replicas: from (" + from + ") exceeds the cluster size (" + clusterSize + ")");
        }
        return new ReplicaCount(ack, from);
    }

    private static int parsePositive(String digits, String what) {
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("replicas: " + what + " must be a positive integer, got '" + digits + "'");
        }
        int value = Integer.parseInt(digits);
        if (value < 1) {
            throw new IllegalArgumentException("replicas: " + what + " must be at least 1");
        }
        return value;
    }
}
