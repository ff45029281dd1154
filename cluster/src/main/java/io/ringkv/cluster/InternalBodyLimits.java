package io.ringkv.cluster;

import io.ringkv.cluster.meta.MetadataGroup;

/**
 * The largest request body each internal route takes, judged at the request's head (a larger
 * announced body is answered 413 before a byte of it is read). Routes that carry records take what
 * the server allows, the node's {@code --max-body} plus {@link InternalProtocol#ONE_WRITE_ENVELOPE_BYTES}
 * (peers' batches of many records stay within {@code --max-body}: {@link ReplicaClient#batchBodyBytesMax};
 * a record too large for that travels alone); the others are small by construction.
 *
 * <p>Stateless.
 */
final class InternalBodyLimits {
    /** What a route that reads no body, or an unknown one, tolerates: a stray small body, never a large one. */
    static final int NO_BODY_BYTES_MAX = 64 * 1024;
    /** {@code POST /internal/v0/meta/...}: a number or a short text. */
    static final int META_BODY_BYTES_MAX = 4 * 1024;

    private InternalBodyLimits() {
    }

    /** @return the most body bytes {@code path} takes; {@link Long#MAX_VALUE} where only the server's limit applies */
    static long forPath(String path) {
        if (path.startsWith(InternalProtocol.RAFT_PREFIX)) {
            return MetadataGroup.RAFT_MESSAGE_BYTES_MAX;
        }
        if (path.startsWith(InternalProtocol.META_PREFIX) || path.startsWith(InternalProtocol.MEMBERSHIP_PREFIX)) {
            return META_BODY_BYTES_MAX;
        }
        return switch (path) {
            case InternalProtocol.WRITES_PATH, InternalProtocol.PAXOS_ACCEPT_PATH -> Long.MAX_VALUE; // an accept carries the proposed record
            case InternalProtocol.READS_PATH, InternalProtocol.VERSIONS_PATH -> ReadBatchCodec.BYTES_MAX; // keys
            default -> NO_BODY_BYTES_MAX;
        };
    }
}
