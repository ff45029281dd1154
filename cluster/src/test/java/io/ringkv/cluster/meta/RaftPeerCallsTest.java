package io.ringkv.cluster.meta;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.HttpServer;
import io.ringkv.http.server.Response;
import io.ringkv.http.server.ServerConfig;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A Raft call's answer is used only with the peer's proof that it answered this very call. */
class RaftPeerCallsTest {

    private static final String TOPOLOGY = "0123456789abcdef";
    private static final ClusterSecret SECRET = ClusterSecret.of("a test secret that is long enough");

    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @AfterEach
    void close() {
        http.close();
        executor.shutdownNow();
    }

    @Test
    void anAnswerSignedForTheCallIsTaken() throws Exception {
        InternalAuth peer = auth(SECRET);
        byte[] reply = {8, 1};
        try (HttpServer server = start(request -> CompletableFuture.completedFuture(
                peer.answers().sign(InternalAuth.proofOf(request), Response.of(200, reply))))) {
            assertThat(call(server).get(10, TimeUnit.SECONDS), equalTo(reply));
        }
    }

    @Test
    void anUnsignedOrForeignAnswerFailsTheCall() throws Exception {
        InternalAuth stranger = auth(ClusterSecret.of("another secret, long enough too"));
        for (HttpHandler forger : new HttpHandler[] {
                request -> CompletableFuture.completedFuture(Response.of(200, new byte[] {8, 1})),
                request -> CompletableFuture.completedFuture(
                        stranger.answers().sign(InternalAuth.proofOf(request), Response.of(200, new byte[] {8, 1})))}) {
            try (HttpServer server = start(forger)) {
                ExecutionException failed = assertThrows(ExecutionException.class, () -> call(server).get(10, TimeUnit.SECONDS));
                assertThat(failed.getCause(), instanceOf(IOException.class));
                assertThat(failed.getCause().getMessage(), containsString("no valid proof of the cluster secret"));
            }
        }
    }

    private CompletableFuture<byte[]> call(HttpServer server) {
        return new RaftPeerCalls(new io.ringkv.cluster.peer.HttpClientTransport(http), auth(SECRET), Duration.ofSeconds(5), executor)
                .call("http://127.0.0.1:" + server.port(), RaftOp.REQUEST_VOTE, new byte[] {1});
    }

    private static InternalAuth auth(ClusterSecret secret) {
        return new InternalAuth(secret, "http://127.0.0.1:1", TOPOLOGY, System::currentTimeMillis);
    }

    private static HttpServer start(HttpHandler handler) throws IOException {
        return HttpServer.start(ServerConfig.builder().host("127.0.0.1").port(0).eventLoops(1).handlerThreads(2)
                .shutdownGrace(Duration.ofSeconds(1)).build(), handler);
    }
}
