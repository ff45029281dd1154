package io.ringkv.cluster.meta;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotReplyProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexReplyProto;
import org.apache.ratis.proto.RaftProtos.ReadIndexRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionReplyProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.protocol.RaftServerAsynchronousProtocol;
import org.apache.ratis.thirdparty.com.google.protobuf.InvalidProtocolBufferException;

/**
 * The server side of Raft's RPC for Ratis, over the internal plane: calls to other servers
 * (votes, appends, snapshots) become signed {@code POST}s to their {@link RaftEndpoint}s through
 * {@link RaftPeerCalls}. It listens on nothing itself: calls to this server arrive through the
 * node's own HTTP server, so {@link #start} and {@link #close} have nothing to open or close.
 *
 * <p>Threading: thread-safe. The synchronous calls block the Ratis thread that makes them (its
 * election or log appender thread) until the answer or the call's timeout; the asynchronous ones
 * block nothing.
 */
final class InternalPlaneServerRpc implements RaftServerRpc {

    private final RaftPeerCalls calls;
    private final RaftPeerAddresses peers = new RaftPeerAddresses();
    private final InetSocketAddress address;

    /** @param selfUrl this node's base URL: the address Ratis reports for this server */
    InternalPlaneServerRpc(RaftPeerCalls calls, String selfUrl) {
        this.calls = calls;
        URI uri = URI.create(selfUrl);
        this.address = InetSocketAddress.createUnresolved(uri.getHost(), uri.getPort());
    }

    @Override
    public void start() {
        // Calls in arrive through the node's HTTP server, which is already listening.
    }

    @Override
    public InetSocketAddress getInetSocketAddress() {
        return address;
    }

    @Override
    public RpcType getRpcType() {
        return InternalPlaneRpcType.INSTANCE;
    }

    @Override
    public void addRaftPeers(Collection<RaftPeer> added) {
        peers.add(added);
    }

    @Override
    public void handleException(RaftPeerId serverId, Exception e, boolean reconnect) {
        // The HTTP client reconnects by itself on the next call; there is no channel to reset here.
    }

    @Override
    public RequestVoteReplyProto requestVote(RequestVoteRequestProto request) throws IOException {
        return parse(await(send(RaftPeerId.valueOf(request.getServerRequest().getReplyId()), RaftOp.REQUEST_VOTE,
                request.toByteArray())), RequestVoteReplyProto::parseFrom);
    }

    @Override
    public AppendEntriesReplyProto appendEntries(AppendEntriesRequestProto request) throws IOException {
        return parse(await(send(RaftPeerId.valueOf(request.getServerRequest().getReplyId()), RaftOp.APPEND_ENTRIES,
                request.toByteArray())), AppendEntriesReplyProto::parseFrom);
    }

    @Override
    public InstallSnapshotReplyProto installSnapshot(InstallSnapshotRequestProto request) throws IOException {
        return parse(await(send(RaftPeerId.valueOf(request.getServerRequest().getReplyId()), RaftOp.INSTALL_SNAPSHOT,
                request.toByteArray())), InstallSnapshotReplyProto::parseFrom);
    }

    @Override
    public StartLeaderElectionReplyProto startLeaderElection(StartLeaderElectionRequestProto request) throws IOException {
        return parse(await(send(RaftPeerId.valueOf(request.getServerRequest().getReplyId()), RaftOp.START_LEADER_ELECTION,
                request.toByteArray())), StartLeaderElectionReplyProto::parseFrom);
    }

    @Override
    public RaftServerAsynchronousProtocol async() {
        return new RaftServerAsynchronousProtocol() {
            @Override
            public CompletableFuture<AppendEntriesReplyProto> appendEntriesAsync(AppendEntriesRequestProto request)
                    throws IOException {
                return send(RaftPeerId.valueOf(request.getServerRequest().getReplyId()), RaftOp.APPEND_ENTRIES, request.toByteArray())
                        .thenApply(bytes -> parseUnchecked(bytes, AppendEntriesReplyProto::parseFrom));
            }

            @Override
            public CompletableFuture<ReadIndexReplyProto> readIndexAsync(ReadIndexRequestProto request) throws IOException {
                return send(RaftPeerId.valueOf(request.getServerRequest().getReplyId()), RaftOp.READ_INDEX, request.toByteArray())
                        .thenApply(bytes -> parseUnchecked(bytes, ReadIndexReplyProto::parseFrom));
            }
        };
    }

    @Override
    public void close() {
        // The HTTP client belongs to the node's cluster, which closes it.
    }

    private CompletableFuture<byte[]> send(RaftPeerId peer, RaftOp op, byte[] body) throws IOException {
        return calls.call(peers.url(peer), op, body);
    }

    /** Waits for an answer; the call's own timeout bounds the wait. */
    static byte[] await(CompletableFuture<byte[]> answer) throws IOException {
        try {
            return answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            answer.cancel(true);
            throw new InterruptedIOException("interrupted while waiting for a Raft peer");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
    }

    /** A protobuf parser. */
    interface Parser<T> {
        T parse(byte[] bytes) throws InvalidProtocolBufferException;
    }

    static <T> T parse(byte[] bytes, Parser<T> parser) throws IOException {
        try {
            return parser.parse(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new IOException("a Raft peer answered with a malformed message: " + e.getMessage(), e);
        }
    }

    static <T> T parseUnchecked(byte[] bytes, Parser<T> parser) {
        try {
            return parse(bytes, parser);
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }
}
