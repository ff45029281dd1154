package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.StorageEngine;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/**
 * What the batchers' tests share: the inter-node client (ours, h2c), a peer's in-memory engine and
 * clock, and a {@link GatedPeer} serving them that holds its first batch of {@link #gatedPath}.
 */
abstract class GatedPeerTestBase {

    static final long WAIT_SECONDS = 10;
    static final long WALL_MILLIS = 1_700_000_000_000L;

    final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    final PeerTransport http = TestAuth.peers(clientExecutor);
    final ReplicaClient client = TestAuth.client(http, Duration.ofSeconds(5));
    final StorageEngine engine = new InMemoryStorageEngine();
    final HybridLogicalClock clock = new HybridLogicalClock(() -> WALL_MILLIS);
    GatedPeer peer;

    /** {@link InternalProtocol#WRITES_PATH} or {@link InternalProtocol#READS_PATH}. */
    abstract String gatedPath();

    @AfterEach
    void closePeerAndClient() throws Exception {
        if (peer != null) {
            peer.close();
        }
        http.close();
        clientExecutor.shutdownNow();
        assertThat(clientExecutor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    ClusterNode servePeer() throws Exception {
        peer = new GatedPeer(engine, clock, gatedPath());
        return peer.node();
    }

    /** A peer that answers 413 to a request body over {@code bodyBytesMax}. */
    ClusterNode servePeer(long bodyBytesMax) throws Exception {
        peer = new GatedPeer(engine, clock, gatedPath(), bodyBytesMax);
        return peer.node();
    }

    static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
