package io.ringkv.cluster.meta;

import java.util.Optional;

/**
 * The Raft calls the internal plane carries, each {@code POST /internal/v0/raft/<path>} with the
 * call's Ratis protobuf as the body and the reply's as the answer ({@link RaftEndpoint}).
 */
enum RaftOp {
    REQUEST_VOTE("request-vote"),
    APPEND_ENTRIES("append-entries"),
    INSTALL_SNAPSHOT("install-snapshot"),
    START_LEADER_ELECTION("start-leader-election"),
    READ_INDEX("read-index"),
    CLIENT_REQUEST("client-request"),
    SET_CONFIGURATION("set-configuration"),
    TRANSFER_LEADERSHIP("transfer-leadership"),
    GROUP_INFO("group-info");

    /** Every Raft call's path starts with this. */
    static final String PATH_PREFIX = io.ringkv.cluster.InternalProtocol.RAFT_PREFIX;

    private final String path;

    RaftOp(String name) {
        this.path = PATH_PREFIX + name;
    }

    String path() {
        return path;
    }

    static Optional<RaftOp> ofPath(String path) {
        for (RaftOp op : values()) {
            if (op.path.equals(path)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }
}
