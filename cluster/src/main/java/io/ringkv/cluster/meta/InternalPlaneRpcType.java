package io.ringkv.cluster.meta;

import org.apache.ratis.client.ClientFactory;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.ServerFactory;

/**
 * Ratis's name for the internal-plane transport. Ratis finds an RPC type from its name in the
 * properties by loading the class of that name, so the name is this class's and the class has a
 * public no-argument constructor. The factory takes what the transport needs from the
 * {@link org.apache.ratis.conf.Parameters} the server is built with.
 */
public final class InternalPlaneRpcType implements RpcType {

    static final InternalPlaneRpcType INSTANCE = new InternalPlaneRpcType();
    static final String CALLS = "ringkv.raft.calls";
    static final String ENDPOINT = "ringkv.raft.endpoint";
    static final String SELF_URL = "ringkv.raft.self-url";

    /** For Ratis, which instantiates the type by its class name. */
    public InternalPlaneRpcType() {
    }

    @Override
    public String name() {
        return InternalPlaneRpcType.class.getName();
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new Factory(parameters.get(CALLS, RaftPeerCalls.class), parameters.get(ENDPOINT, RaftEndpoint.class),
                parameters.get(SELF_URL, String.class));
    }

    static Parameters parameters(RaftPeerCalls calls, RaftEndpoint endpoint, String selfUrl) {
        Parameters parameters = new Parameters();
        parameters.put(CALLS, calls, RaftPeerCalls.class);
        parameters.put(ENDPOINT, endpoint, RaftEndpoint.class);
        parameters.put(SELF_URL, selfUrl, String.class);
        return parameters;
    }

    /** Makes a server's RPC (and binds the endpoint to that server) or a client's. */
    private record Factory(RaftPeerCalls calls, RaftEndpoint endpoint, String selfUrl) implements ServerFactory, ClientFactory {

        @Override
        public RpcType getRpcType() {
            return INSTANCE;
        }

        @Override
        public RaftServerRpc newRaftServerRpc(RaftServer server) {
            endpoint.bind(server);
            return new InternalPlaneServerRpc(calls, selfUrl);
        }

        /** Only for a client built without its own RPC; {@link MetadataGroup}'s has one that calls itself in process. */
        @Override
        public RaftClientRpc newRaftClientRpc(ClientId clientId, RaftProperties properties) {
            return new InternalPlaneClientRpc(calls, null, endpoint);
        }
    }
}
