package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.Record;
import io.ringkv.store.StorageEngine;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A host on the path between two nodes, without the cluster secret: node A reaches node B only
 * through a relay (our HTTP server and client, h2c on both sides, real sockets on 127.0.0.1) that
 * passes A's requests on unchanged and changes B's answers, keeping B's headers, proof included.
 * The cluster knows B by the relay's URL, as it would know a node behind a hostile router.
 *
 * <p>Before answers carried proofs, A returned the forged value of a read (and repaired its own
 * copy with it), and served the forged value of a range.
 */
class OnPathForgeryTest {

    private static final long WAIT_SECONDS = 10;
    private static final byte[] KEY = utf8("victim");
    /** Same length as the forgery, so a relay that changes a streamed body keeps its framing. */
    private static final String ORIGINAL = "original";
    private static final String FORGED = "forgery!";

    private final ExecutorService handlerExecutor = Executors.newFixedThreadPool(2);
    private final ExecutorService relayExecutor = InterNodeHttpClients.newExecutor(1);
    private final HttpClient relayClient = InterNodeHttpClients.create(relayExecutor, Duration.ofSeconds(2));
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final StorageEngine engineA = new InMemoryStorageEngine();
    private final StorageEngine engineB = new InMemoryStorageEngine();
    private Cluster clusterA;
    private String relayUrl;

    @BeforeEach
    void twoNodesAndARelay() throws Exception {
        AtomicReference<HttpHandler> handlerA = new AtomicReference<>();
        AtomicReference<HttpHandler> handlerB = new AtomicReference<>();
        ServerHarness serverA = ServerHarness.start(onceSet(handlerA));
        ServerHarness serverB = ServerHarness.start(onceSet(handlerB));
        ServerHarness relay = ServerHarness.start(new ForgingRelay(serverB.url()));
        resources.add(serverA);
        resources.add(serverB);
        resources.add(relay);
        relayUrl = relay.url();
        List<String> urls = List.of(serverA.url(), relayUrl);
        clusterA = Cluster.start(settings(urls, serverA.url()), engineA, HybridLogicalClock.systemClock(), handlerExecutor);
        resources.add(clusterA);
        handlerA.set(clusterA.internalHandler());
        Cluster clusterB = Cluster.start(settings(urls, relayUrl), engineB, HybridLogicalClock.systemClock(), handlerExecutor);
        resources.add(clusterB);
        handlerB.set(clusterB.internalHandler());
    }

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        relayClient.close();
        relayExecutor.shutdownNow();
        handlerExecutor.shutdownNow();
        assertThat(handlerExecutor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    @Test
    void aReadAnswerChangedOnTheWayIsAFailedReplicaNotTheValueAndIsNotSpread() throws Exception {
        Record original = Record.value(1_000, utf8(ORIGINAL));
        engineA.apply(KEY, original);
        engineB.apply(KEY, original);

        long rejectedBefore = rejected();
        ReadOutcome read = clusterA.coordinator().get(KEY, new ReplicationParams(2, 2)).get(WAIT_SECONDS, TimeUnit.SECONDS);

        assertThat("the forged answer is not returned", read, instanceOf(NotEnoughReplicas.class));
        assertThat("nor repaired into the coordinator's copy", engineA.get(KEY), is(Optional.of(original)));
        assertThat("counted", rejected(), greaterThanOrEqualTo(rejectedBefore + 1));
    }

    @Test
    void aRangeChangedOnTheWayFailsInsteadOfServingTheForgery() throws Exception {
        engineB.apply(KEY, Record.value(1_000, utf8(ORIGINAL)));

        long rejectedBefore = rejected();
        ClusterRangeMerge merge = clusterA.range().open(new byte[0], null).get(WAIT_SECONDS, TimeUnit.SECONDS);
        StringBuilder served = new StringBuilder();
        IOException failure = null;
        try (merge) {
            for (ByteBuffer chunk = merge.next(); chunk != null; chunk = merge.next()) {
                served.append(StandardCharsets.UTF_8.decode(chunk));
            }
        } catch (IOException e) {
            failure = e;
        }

        assertThat(served.toString(), not(containsString(FORGED)));
        assertThat("the range fails", failure, instanceOf(ReplicaException.class));
        assertThat("counted", rejected(), greaterThanOrEqualTo(rejectedBefore + 1));
    }

    /** The handler once set; 503 before (while the node's cluster starts and already asks its peer). */
    private static HttpHandler onceSet(AtomicReference<HttpHandler> handler) {
        return request -> {
            HttpHandler set = handler.get();
            return set == null ? CompletableFuture.completedFuture(Response.text(503, "starting")) : set.handle(request);
        };
    }

    /** Answers from B that A refused so far. */
    private long rejected() {
        return clusterA.rejectedAnswers().getOrDefault(relayUrl, 0L);
    }

    private static ClusterSettings settings(List<String> urls, String self) {
        return new ClusterSettings(urls, self, ReplicaClient.DEFAULT_REQUEST_TIMEOUT, CoordinatorSettings.DEFAULT_DEADLINE, 1,
                TestAuth.SECRET, InterNodeTransport.defaults(), HintSettings.defaults(), AntiEntropySettings.defaults(),
                ClusterSettings.DEFAULT_TOMBSTONE_GRACE, ClusterSettings.DEFAULT_MAX_CLOCK_OFFSET,
                CoordinatorSettings.DEFAULT_READ_SPARE_DELAY);
    }

    /**
     * Passes every request on to {@code target} as it came (its X-Ringkv-* fields, proof included)
     * and answers with the target's status and X-Ringkv-* fields (proof included), but: every record
     * in a read answer becomes {@link #FORGED}, stamped later than the original
     * so that it wins; in a range answer the bytes of {@link #ORIGINAL} become {@link #FORGED}.
     */
    private final class ForgingRelay implements HttpHandler {
        private final String target;

        ForgingRelay(String target) {
            this.target = target;
        }

        @Override
        public CompletableFuture<Response> handle(Request request) {
            String uri = target + request.path() + (request.query().isEmpty() ? "" : "?" + request.query());
            HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(5))
                    .method(request.method(), HttpRequest.BodyPublishers.ofByteArray(request.body()));
            for (String name : request.headers().names()) {
                if (name.toLowerCase(Locale.ROOT).startsWith("x-ringkv-")) {
                    forward.header(name, request.headers().first(name).orElseThrow());
                }
            }
            return relayClient.sendAsync(forward.build(), HttpResponse.BodyHandlers.ofByteArray())
                    .thenApply(answer -> {
                        Response changed = Response.of(answer.statusCode(), forge(request, answer.statusCode(), answer.body()));
                        for (Map.Entry<String, List<String>> field : answer.headers().map().entrySet()) {
                            if (field.getKey().toLowerCase(Locale.ROOT).startsWith("x-ringkv-")) {
                                field.getValue().forEach(value -> changed.withHeader(field.getKey(), value));
                            }
                        }
                        return changed;
                    });
        }

        private byte[] forge(Request request, int status, byte[] body) {
            if (status != 200) {
                return body;
            }
            return switch (request.path()) {
                case InternalProtocol.READS_PATH -> {
                    List<ReadBatchCodec.Answer> answers = ReadBatchCodec.decodeAnswers(body,
                            ReadBatchCodec.decodeRequest(request.body()).size());
                    List<ReadBatchCodec.Answer> forged = new ArrayList<>();
                    for (ReadBatchCodec.Answer answer : answers) {
                        forged.add(answer.record() == null ? answer
                                : new ReadBatchCodec.Answer(Record.value(answer.record().timestamp() + 1_000_000, utf8(FORGED)), false));
                    }
                    yield ReadBatchCodec.encodeAnswers(forged);
                }
                case InternalProtocol.RANGE_PATH -> replace(body, utf8(ORIGINAL), utf8(FORGED));
                default -> body;
            };
        }
    }

    private static byte[] replace(byte[] body, byte[] what, byte[] with) {
        byte[] changed = body.clone();
        for (int i = 0; i + what.length <= changed.length; i++) {
            if (java.util.Arrays.equals(changed, i, i + what.length, what, 0, what.length)) {
                System.arraycopy(with, 0, changed, i, with.length);
            }
        }
        return changed;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
