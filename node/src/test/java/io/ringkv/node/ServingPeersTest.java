package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import com.sun.net.httpserver.HttpServer;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.ops.LocalPorts;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ServingPeers} against real peers on loopback that answer what a peer might: a running
 * node, a node that just began serving, a starting one, a build without {@code servingSeconds},
 * and hostile bytes (a body past the limit, nonsense numbers), a peer that never answers, a port
 * nobody listens on. Only the first counts as serving.
 */
class ServingPeersTest {
    private final List<HttpServer> servers = new ArrayList<>();
    private final List<ExecutorService> executors = new ArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        servers.forEach(server -> server.stop(0));
        executors.forEach(ExecutorService::shutdownNow);
    }

    @Test
    void onlyAPeerThatHasServedForTenSecondsCounts() throws Exception {
        ClusterNode running = peer(200, "{\"state\":\"serving\",\"uptimeSeconds\":99,\"servingSeconds\":42,\"peers\":[]}");
        ClusterNode fresh = peer(200, "{\"state\":\"serving\",\"uptimeSeconds\":11,\"servingSeconds\":1}");
        ClusterNode starting = peer(503, "{\"state\":\"starting\",\"uptimeSeconds\":30,\"servingSeconds\":0}");
        ClusterNode older = peer(200, "{\"state\":\"serving\",\"uptimeSeconds\":500}");

        ServingPeers.Probe probe = ServingPeers.probe(List.of(running, fresh, starting, older), null, Duration.ofSeconds(2));

        assertThat(probe.serving(), contains(running.id()));
        assertThat(probe.seen(), hasItem(running.id() + " serving for 42 s"));
        assertThat(probe.seen(), hasItem(fresh.id() + " serving for 1 s"));
        assertThat(probe.seen(), hasItem(starting.id() + " status 503"));
        assertThat(probe.seen(), hasItem(older.id() + " status 200 without a time serving"));
    }

    @Test
    void hostileOrSilentPeersDoNotCount() throws Exception {
        ClusterNode huge = peer(200, "{\"servingSeconds\":42,\"pad\":\"" + "x".repeat(ServingPeers.STATUS_BYTES_MAX) + "\"}");
        ClusterNode negative = peer(200, "{\"servingSeconds\":-50}");
        ClusterNode enormous = peer(200, "{\"servingSeconds\":1e400}");
        ClusterNode words = peer(200, "{\"servingSeconds\":\"forever\"}");
        ClusterNode silent = silentPeer();
        ClusterNode nobody = ClusterNode.parse("http://127.0.0.1:" + LocalPorts.free(1).getFirst());

        List<ClusterNode> peers = List.of(huge, negative, enormous, words, silent, nobody);
        ServingPeers.Probe probe = ServingPeers.probe(peers, null, Duration.ofSeconds(1));

        assertThat(probe.serving(), empty());
        assertThat(probe.seen().get(0), startsWith(huge.id() + " no answer"));
        assertThat(probe.seen().get(4), startsWith(silent.id() + " no answer"));
        assertThat(probe.seen().get(5), startsWith(nobody.id() + " no answer"));
    }

    private ClusterNode peer(int status, String body) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(StatusEndpoint.PATH, exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        return started(server);
    }

    /** Accepts the request and never answers (until the test ends). */
    private ClusterNode silentPeer() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(StatusEndpoint.PATH, exchange -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        return started(server);
    }

    private ClusterNode started(HttpServer server) {
        ExecutorService executor = Executors.newCachedThreadPool();
        executors.add(executor);
        server.setExecutor(executor);
        server.start();
        servers.add(server);
        return ClusterNode.parse("http://127.0.0.1:" + server.getAddress().getPort());
    }
}
