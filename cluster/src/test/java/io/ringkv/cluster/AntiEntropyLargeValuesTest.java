package io.ringkv.cluster;

import io.ringkv.cluster.peer.PeerTransport;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Anti-entropy's scan pass with values that fill requests: node B answers 413 to a request body
 * over {@value #B_BODY_MAX} bytes, as a node with that {@code --max-body}. A's records are in its
 * store before its anti-entropy starts, so none is among the recently changed keys and the round
 * finds them by scanning (the pass that used to stop at the first refused batch).
 */
@Timeout(60)
class AntiEntropyLargeValuesTest {

    private static final int B_BODY_MAX = 64 * 1024;
    private static final int KEYS = 100;
    private static final HybridLogicalClock CLOCK = new HybridLogicalClock(() -> 1_700_000_000_000L);

    private final ExecutorService clientExecutor = InterNodeHttpClients.newExecutor(2);
    private final PeerTransport http = TestAuth.peers(clientExecutor);
    private final StorageEngine engineA = new InMemoryStorageEngine();
    private final StorageEngine engineB = new InMemoryStorageEngine();
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        TestAuth.closeAll(resources, http, clientExecutor);
    }

    /** Node A, comparing with B over a client that takes its peers to accept bodies of up to {@code peerBodyBytesMax}. */
    private AntiEntropy nodes(long peerBodyBytesMax) throws Exception {
        ReplicaClient client = new ReplicaClient(http, Duration.ofSeconds(2), TestAuth.auth(),
                new TopologyWatch(TestAuth.TOPOLOGY), peerBodyBytesMax);
        AtomicReference<HttpHandler> handlerA = new AtomicReference<>();
        ServerHarness serverA = ServerHarness.start(request -> handlerA.get().handle(request));
        ServerHarness serverB = ServerHarness.startFor(url -> TestAuth.handler(url, engineB, CLOCK), B_BODY_MAX);
        resources.add(serverA);
        resources.add(serverB);
        AntiEntropy antiEntropyA = new AntiEntropy(engineA, ClusterNodes.of(List.of(serverA.url(), serverB.url()),
                serverA.url()), client, AntiEntropySettings.defaults(), record -> false);
        resources.add(antiEntropyA);
        handlerA.set(TestAuth.handler(serverA.url(), engineA, CLOCK, antiEntropyA));
        return antiEntropyA;
    }

    /** 2 KB values, and one of exactly B's body limit at {@code k050}. */
    private void aHoldsValuesWithOneOf(int largeBytes) throws Exception {
        for (int i = 0; i < KEYS; i++) {
            engineA.apply(key(i), Record.value(10 + i, new byte[i == 50 ? largeBytes : 2000]));
        }
    }

    /**
     * Both sides agree on the limit: every batch fits it and the record of exactly that size goes
     * alone, so B gets all. Before, the scan put everything into one batch of about 260 KB, which
     * B refused, and the round failed for B with nothing delivered.
     */
    @Test
    void aScanWithARecordAtThePeersLimitDeliversEveryRecord() throws Exception {
        aHoldsValuesWithOneOf(B_BODY_MAX);
        AntiEntropy antiEntropy = nodes(B_BODY_MAX);

        AntiEntropy.Status status = round(antiEntropy);

        assertThat(status.peersFailed(), is(0L));
        assertThat(status.recordsPushed(), is((long) KEYS));
        for (int i = 0; i < KEYS; i++) {
            assertThat("k" + i, engineB.get(key(i)).map(Record::timestamp), is(Optional.of(10L + i)));
        }
    }

    /**
     * A takes B to accept more than it does, so B refuses A's batches and, sent alone, the one
     * record over its limit: the records after it in the scan still arrive, and the round counts B
     * as compared, not failed.
     */
    @Test
    void aRecordThePeerRefusesDoesNotStopTheScan() throws Exception {
        aHoldsValuesWithOneOf(100_000);
        AntiEntropy antiEntropy = nodes(16L << 20);

        AntiEntropy.Status status = round(antiEntropy);

        assertThat(status.peersFailed(), is(0L));
        assertThat(status.recordsPushed(), is((long) KEYS - 1));
        for (int i = 0; i < KEYS; i++) {
            assertThat("k" + i, engineB.get(key(i)).isPresent(), is(i != 50));
        }
    }

    private static AntiEntropy.Status round(AntiEntropy antiEntropy) throws InterruptedException {
        long before = antiEntropy.requestRound();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            AntiEntropy.Status status = antiEntropy.status();
            if (status.roundsCompleted() > before && !status.running()) {
                return status;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no anti-entropy round finished within 30 s");
    }

    private static byte[] key(int i) {
        return String.format("k%03d", i).getBytes(StandardCharsets.UTF_8);
    }
}
