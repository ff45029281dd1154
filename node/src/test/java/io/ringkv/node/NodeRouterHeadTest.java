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

/**
 * What the router answers at a request's head. Only the node-to-node plane's calls may take the
 * server's in-flight reserve, and only as its handler says. Only the public API's plain reads and
 * writes of a key and what the node-to-node handler names run on the event loop: nothing before
 * the node is ready, never a conditional write (its compare-and-set state is on disk), a large or
 * undeclared body, a range or the node's own endpoints.
 */
class NodeRouterHeadTest {
    private static final HttpHandler NOTHING = request -> CompletableFuture.completedFuture(Response.text(200, ""));

    /**
     * A node-to-node handler whose head check marks every call it lets through as priority, and
     * runs its write batches on the loop, as the cluster's does.
     */
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

        @Override
        public boolean onLoop(Head head) {
            return head.path().equals("/internal/v0/writes");
        }
    }

    private static HeadAdmission.Head head(String path) {
        return new HeadAdmission.Head("POST", path, "", Headers.of(), 0, new InetSocketAddress("127.0.0.1", 1), Protocol.HTTP_2,
                List.of());
    }

    private static HeadAdmission.Head request(String method, String path, String... fields) {
        return request(method, path, 5, fields);
    }

    private static HeadAdmission.Head request(String method, String path, long contentLength, String... fields) {
        return new HeadAdmission.Head(method, path, "", Headers.of(fields), contentLength, new InetSocketAddress("127.0.0.1", 1),
                Protocol.HTTP_1_1, List.of());
    }

    /** Access control with one read token, in front of a router whose node is ready. */
    private static AccessControl accessControlOverAReadyRouter(Path dir) throws Exception {
        Path tokens = dir.resolve("tokens");
        TokenFile.add(tokens, new Grant("app", AccessScope.parseList("read"), null), BearerToken.sha256(BearerToken.generate()));
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING);
        router.ready(NOTHING, new PeerPlane());
        return new AccessControl(TokenRegistry.load(tokens), router);
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
        AccessControl access = accessControlOverAReadyRouter(dir);
        assertThat(access.priority(head("/internal/v0/raft/append")), is(true));
        assertThat(access.priority(head("/v0/entity")), is(false));
    }

    @Test
    void plainReadsAndWritesOfAKeyAndThePeerPlanesChoiceRunOnTheLoop() {
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING);
        assertThat("before the node is ready", router.onLoop(request("GET", "/v0/entity")), is(false));
        router.ready(NOTHING, new PeerPlane());
        for (String method : new String[] {"GET", "HEAD", "PUT", "DELETE"}) {
            assertThat(method, router.onLoop(request(method, "/v0/entity")), is(true));
        }
        assertThat(router.onLoop(request("GET", "/v0/entity", "If-None-Match", "\"v1\"")), is(true));
        assertThat(router.onLoop(request("POST", "/v0/entity")), is(false));
        assertThat(router.onLoop(request("PUT", "/internal/v0/writes")), is(true));
        assertThat(router.onLoop(request("GET", "/internal/v0/digest")), is(false));
    }

    @Test
    void aPutWithALargeOrUndeclaredBodyRunsOnTheExecutor() {
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING);
        router.ready(NOTHING, new PeerPlane());
        assertThat(router.onLoop(request("PUT", "/v0/entity", PublicApi.ON_LOOP_BODY_BYTES_MAX)), is(true));
        assertThat(router.onLoop(request("PUT", "/v0/entity", PublicApi.ON_LOOP_BODY_BYTES_MAX + 1)), is(false));
        assertThat("chunked, or HTTP/2 without content-length", router.onLoop(request("PUT", "/v0/entity", -1)), is(false));
    }

    @Test
    void conditionalWritesRangesAndTheNodesOwnEndpointsRunOnTheExecutor() {
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING);
        router.ready(NOTHING, new PeerPlane());
        assertThat(router.onLoop(request("PUT", "/v0/entity", "If-Match", "\"v1\"")), is(false));
        assertThat(router.onLoop(request("PUT", "/v0/entity", "If-None-Match", "*")), is(false));
        assertThat(router.onLoop(request("DELETE", "/v0/entity", "If-Unmodified-Since", "Sun, 29 Nov 2026 05:00:00 GMT")), is(false));
        assertThat(router.onLoop(request("GET", "/v0/entities")), is(false));
        assertThat(router.onLoop(request("GET", StatusEndpoint.PATH)), is(false));
        assertThat(router.onLoop(request("GET", MetricsEndpoint.PATH)), is(false));
    }

    @Test
    void withACoordinatorThatMayBlockNoPublicRequestRunsOnTheLoop() {
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING);
        router.ready(NOTHING, new PeerPlane(), false);
        assertThat(router.onLoop(request("GET", "/v0/entity")), is(false));
        assertThat(router.onLoop(request("PUT", "/internal/v0/writes")), is(true));
    }

    @Test
    void accessControlPassesTheRoutersOnLoopAnswerOn(@TempDir Path dir) throws Exception {
        AccessControl access = accessControlOverAReadyRouter(dir);
        assertThat(access.onLoop(request("GET", "/v0/entity")), is(true));
        assertThat(access.onLoop(request("PUT", "/v0/entity", "If-Match", "\"v1\"")), is(false));
    }

    /**
     * The public API takes bodies up to {@code --max-body} (413 at the head for a longer announced
     * one, and the same limit for one whose length the head does not say); the node-to-node plane
     * and the node's own endpoints are bounded by the server, which takes a write batch of one value
     * of {@code --max-body} besides.
     */
    @Test
    void thePublicApiTakesBodiesUpToMaxBodyAndTheServerAWriteBatchOfSuchAValue() {
        long maxBody = 1000;
        NodeRouter router = new NodeRouter(NOTHING, NOTHING, NOTHING, maxBody);
        router.ready(NOTHING, new PeerPlane());
        assertThat(router.admit(request("PUT", "/v0/entity", maxBody)), is(Optional.empty()));
        Optional<Response> tooLong = router.admit(request("PUT", "/v0/entity", maxBody + 1));
        assertThat(tooLong.map(Response::status), is(Optional.of(413)));
        assertThat(router.bodyBytesMax(request("PUT", "/v0/entity", -1)), is(maxBody));
        assertThat(router.admit(request("PUT", "/internal/v0/writes", maxBody + 100)), is(Optional.empty()));
        assertThat(router.bodyBytesMax(request("PUT", "/internal/v0/writes", -1)), is(Long.MAX_VALUE));
        assertThat(io.ringkv.cluster.InternalProtocol.serverBodyBytesMax(maxBody),
                is(maxBody + io.ringkv.cluster.InternalProtocol.ONE_WRITE_ENVELOPE_BYTES));
        assertThat("no overflow", io.ringkv.cluster.InternalProtocol.serverBodyBytesMax(Long.MAX_VALUE - 1), is(Long.MAX_VALUE));
    }
}
