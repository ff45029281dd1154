package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.Headers;
import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenRegistry;
import io.ringkv.ops.BearerToken;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Only the node-to-node plane's calls may take the server's in-flight reserve, and only as its handler says. */
class NodeRouterPriorityTest {
    private static final HttpHandler NOTHING = request -> CompletableFuture.completedFuture(Response.text(200, ""));

    /** A node-to-node handler whose head check marks every call it lets through as priority, as the cluster's does. */
    private static final class PeerPlane implements HttpHandler, HeadAdmission {
        @Override
        public CompletionStage<Response> handle(Request request) {
            return CompletableFuture.completedFuture(Response.text(200, ""));
        }

        @Override
        public Optional<Response> admit(Head head) {
            return Optional.empty();
        }

        @Override
        public boolean priority(Head head) {
            return true;
        }
    }

    private static HeadAdmission.Head head(String path) {
        return new HeadAdmission.Head("POST", path, "", Headers.of(), 0, new InetSocketAddress("127.0.0.1", 1), Protocol.HTTP_2,
                List.of());
    }

    @Test
    void peerCallsArePriorityClientRequestsAndTheNodesOwnEndpointsAreNot() {
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING);
        assertThat("before the node is ready", router.priority(head("/internal/v0/write-batch")), is(false));
        router.ready(NOTHING, new PeerPlane());
        assertThat(router.priority(head("/internal/v0/write-batch")), is(true));
        assertThat(router.priority(head("/v0/entity")), is(false));
        assertThat(router.priority(head(StatusEndpoint.PATH)), is(false));
        assertThat(router.priority(head(MetricsEndpoint.PATH)), is(false));
    }

    @Test
    void accessControlPassesTheRoutersAnswerOn(@TempDir Path dir) throws Exception {
        Path tokens = dir.resolve("tokens");
        TokenFile.add(tokens, new Grant("app", AccessScope.parseList("read"), null), BearerToken.sha256(BearerToken.generate()));
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING);
        router.ready(NOTHING, new PeerPlane());
        AccessControl access = new AccessControl(TokenRegistry.load(tokens), router);
        assertThat(access.priority(head("/internal/v0/raft/append")), is(true));
        assertThat(access.priority(head("/v0/entity")), is(false));
    }
}
