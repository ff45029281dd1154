package io.ringkv.cluster.meta;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.proto.RaftProtos.GroupInfoReplyProto;
import org.apache.ratis.proto.RaftProtos.RaftClientReplyProto;
import org.apache.ratis.protocol.GroupInfoRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;

/**
 * The client side of Raft's RPC for Ratis, over the internal plane: a {@link RaftClientRequest}
 * (a command, a read, a change of the group) becomes a signed {@code POST} to the server's
 * {@link RaftEndpoint}.
 *
 * <p>A reply that says "not the leader" or "leader not ready" reaches each of Ratis's client paths
 * the way that path reads it. The asynchronous calls get it as the call's failure: that is where
 * they look for it. The blocking call ({@link #sendRequest}) gets it inside the reply, where its
 * handler takes the suggested leader and the server's current peers; thrown, it would be read as
 * a plain I/O failure, and the client would go on guessing among the peers it started with, never
 * reaching a leader that joined after it was built.
 *
 * <p>Supported: ordinary client requests (writes, reads, watches; ordered or not), set-configuration,
 * transfer-leadership and group-info; other admin requests (group management, snapshots, leader
 * election management) fail with {@link UnsupportedOperationException}: ringkv does not send them.
 *
 * <p>Threading: thread-safe; futures complete on the HTTP client's threads.
 */
final class InternalPlaneClientRpc implements RaftClientRpc {

    private final RaftPeerCalls calls;
    private final RaftPeerAddresses peers = new RaftPeerAddresses();
    private final RaftPeerId self;
    private final RaftEndpoint local;

    /**
     * @param self  this node's peer id: requests for it go to {@code local} in process (null: none do)
     * @param local this node's endpoint
     */
    InternalPlaneClientRpc(RaftPeerCalls calls, RaftPeerId self, RaftEndpoint local) {
        this.calls = calls;
        this.self = self;
        this.local = local;
    }

    @Override
    public CompletableFuture<RaftClientReply> sendRequestAsync(RaftClientRequest request) {
        return send(request).thenApply(InternalPlaneClientRpc::failIfNotLeader);
    }

    /** The server's reply as it is, a "not the leader" one included. */
    private CompletableFuture<RaftClientReply> send(RaftClientRequest request) {
        if (request.getServerId().equals(self)) {
            return local.submitLocally(request);
        }
        RaftOp op;
        byte[] body;
        switch (request) {
            case SetConfigurationRequest set -> {
                op = RaftOp.SET_CONFIGURATION;
                body = ClientProtoUtils.toSetConfigurationRequestProto(set).toByteArray();
            }
            case TransferLeadershipRequest transfer -> {
                op = RaftOp.TRANSFER_LEADERSHIP;
                body = ClientProtoUtils.toTransferLeadershipRequestProto(transfer).toByteArray();
            }
            case GroupInfoRequest info -> {
                op = RaftOp.GROUP_INFO;
                body = ClientProtoUtils.toGroupInfoRequestProto(info).toByteArray();
            }
            default -> {
                if (request.getClass() != RaftClientRequest.class) {
                    return CompletableFuture.failedFuture(new UnsupportedOperationException(
                            request.getClass().getSimpleName() + " is not carried over ringkv's internal plane"));
                }
                op = RaftOp.CLIENT_REQUEST;
                body = ClientProtoUtils.toRaftClientRequestProto(request).toByteArray();
            }
        }
        String url;
        try {
            url = peers.url(request.getServerId());
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        return calls.call(url, op, body).thenApply(bytes -> op == RaftOp.GROUP_INFO
                ? ClientProtoUtils.toGroupInfoReply(InternalPlaneServerRpc.parseUnchecked(bytes, GroupInfoReplyProto::parseFrom))
                : ClientProtoUtils.toRaftClientReply(InternalPlaneServerRpc.<RaftClientReplyProto>parseUnchecked(bytes,
                        RaftClientReplyProto::parseFrom)));
    }

    /** Ratis's asynchronous calls try another server on these only when they fail the call. */
    private static RaftClientReply failIfNotLeader(RaftClientReply reply) {
        if (reply.getNotLeaderException() != null) {
            throw new CompletionException(reply.getNotLeaderException());
        }
        if (reply.getLeaderNotReadyException() != null) {
            throw new CompletionException(reply.getLeaderNotReadyException());
        }
        return reply;
    }

    /**
     * Unordered calls (the catch-up reads, {@link MetadataGroup#readForCatchUp}) travel as the
     * ordered ones do: each is an HTTP request of its own, so nothing orders them on the way; the
     * ordering of ordered calls is the Ratis client's.
     */
    @Override
    public CompletableFuture<RaftClientReply> sendRequestAsyncUnordered(RaftClientRequest request) {
        return sendRequestAsync(request);
    }

    /** Blocking: a "not the leader" reply is returned, not thrown (the class comment says why). */
    @Override
    public RaftClientReply sendRequest(RaftClientRequest request) throws IOException {
        CompletableFuture<RaftClientReply> reply = send(request);
        try {
            return reply.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply.cancel(true);
            throw new InterruptedIOException("interrupted while waiting for a Raft server");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(e.getCause());
        }
    }

    @Override
    public void addRaftPeers(Collection<RaftPeer> added) {
        peers.add(added);
    }

    @Override
    public void close() {
        // The HTTP client belongs to the node's cluster, which closes it.
    }
}
