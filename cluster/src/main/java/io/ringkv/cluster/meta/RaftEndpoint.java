package io.ringkv.cluster.meta;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.GroupInfoRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.SetConfigurationRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.proto.RaftProtos.TransferLeadershipRequestProto;
import org.apache.ratis.protocol.GroupInfoRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import org.apache.ratis.thirdparty.com.google.protobuf.MessageLite;

/**
 * The receiving end of Raft calls on the internal plane: {@code POST /internal/v0/raft/<op>}
 * ({@link RaftOp}) with a Ratis protobuf body, answered {@code 200} with the reply's protobuf.
 * Mounted behind {@link io.ringkv.cluster.InternalApiHandler}, so only requests that proved the
 * cluster secret get here. Statuses: {@code 400} for a body that is not the op's message,
 * {@code 404} for an unknown op, {@code 405} for another method, {@code 503} while no Raft server
 * is bound or when the server refuses the call (it is not ready, the group is another), with the
 * reason as text.
 *
 * <p>Threading: handler threads. Votes, snapshot chunks and leader-election starts are answered
 * on the calling thread (short work); appends, reads and client requests complete when Ratis does,
 * without holding the thread. The server is bound once, when Ratis creates its RPC.
 */
public final class RaftEndpoint implements HttpHandler {

    private volatile RaftServer server;

    void bind(RaftServer raftServer) {
        this.server = raftServer;
    }

    @Override
    public CompletionStage<Response> handle(Request request) {
        if (!request.method().equals("POST")) {
            return done(Response.text(405, "use POST").withHeader("Allow", "POST"));
        }
        RaftOp op = RaftOp.ofPath(request.path()).orElse(null);
        if (op == null) {
            return done(Response.text(404, "no Raft call " + request.path()));
        }
        RaftServer bound = server;
        if (bound == null) {
            return done(Response.text(503, "this node's metadata group is not running"));
        }
        if (bound.getLifeCycleState() != LifeCycle.State.RUNNING) {
            // Closing, or still starting, as when this node restarts its server in another role: Ratis
            // would refuse the call too, logging an ERROR with a stack trace for every one.
            return done(Response.text(503, "this node's metadata server is " + bound.getLifeCycleState()
                    + " (restarting?); ask again"));
        }
        byte[] body = request.body();
        try {
            CompletableFuture<? extends MessageLite> reply = switch (op) {
                case REQUEST_VOTE -> CompletableFuture.completedFuture(bound.requestVote(RequestVoteRequestProto.parseFrom(body)));
                case APPEND_ENTRIES -> bound.appendEntriesAsync(AppendEntriesRequestProto.parseFrom(body));
                case INSTALL_SNAPSHOT -> CompletableFuture.completedFuture(
                        bound.installSnapshot(InstallSnapshotRequestProto.parseFrom(body)));
                case START_LEADER_ELECTION -> CompletableFuture.completedFuture(
                        bound.startLeaderElection(StartLeaderElectionRequestProto.parseFrom(body)));
                case READ_INDEX -> bound.readIndexAsync(ReadIndexRequestProto.parseFrom(body));
                case CLIENT_REQUEST -> bound.submitClientRequestAsync(
                                ClientProtoUtils.toRaftClientRequest(RaftClientRequestProto.parseFrom(body)))
                        .thenApply(ClientProtoUtils::toRaftClientReplyProto);
                case SET_CONFIGURATION -> bound.setConfigurationAsync(
                                ClientProtoUtils.toSetConfigurationRequest(SetConfigurationRequestProto.parseFrom(body)))
                        .thenApply(ClientProtoUtils::toRaftClientReplyProto);
                case TRANSFER_LEADERSHIP -> bound.transferLeadershipAsync(
                                ClientProtoUtils.toTransferLeadershipRequest(TransferLeadershipRequestProto.parseFrom(body)))
                        .thenApply(ClientProtoUtils::toRaftClientReplyProto);
                case GROUP_INFO -> bound.getGroupInfoAsync(
                                ClientProtoUtils.toGroupInfoRequest(GroupInfoRequestProto.parseFrom(body)))
                        .thenApply(ClientProtoUtils::toGroupInfoReplyProto);
            };
            return reply.handle((message, failure) -> failure == null
                    ? Response.of(200, message.toByteArray()).withHeader("Content-Type", "application/x-protobuf")
                    : refused(failure));
        } catch (InvalidProtocolBufferException e) {
            return done(Response.text(400, "the body is not a " + op + " message: " + e.getMessage()));
        } catch (IOException | RuntimeException e) {
            return done(refused(e));
        }
    }

    /**
     * A client request for this node's own server, handed to it in process: the node's Raft client
     * needs no HTTP round trip to itself, and a one-node cluster serves no internal plane at all.
     */
    CompletableFuture<RaftClientReply> submitLocally(
            RaftClientRequest request) {
        RaftServer bound = server;
        if (bound == null) {
            return CompletableFuture.failedFuture(new IOException("this node's metadata group is not running"));
        }
        try {
            return switch (request) {
                case SetConfigurationRequest set -> bound.setConfigurationAsync(set);
                case TransferLeadershipRequest transfer -> bound.transferLeadershipAsync(transfer);
                case GroupInfoRequest info -> bound.getGroupInfoAsync(info)
                        .thenApply(reply -> (RaftClientReply) reply);
                default -> bound.submitClientRequestAsync(request);
            };
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static Response refused(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return Response.text(503, "the Raft server refused the call: " + cause);
    }

    private static CompletionStage<Response> done(Response response) {
        return CompletableFuture.completedFuture(response);
    }
}
