package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Response;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.StorageEngine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A real peer (our server, {@link InternalApiHandler} on {@code engine}) that holds its answer to
 * the first request on one batch path until the test lets it go, and lists the requests it took:
 * a batch as {@code "writes N"} or {@code "reads N"} (N calls in it), anything else as its path.
 * So which calls queue behind that first batch, and which leave together, follows from the order
 * of the test's calls rather than from timing.
 */
final class GatedPeer implements AutoCloseable {

    private final List<String> seen = new CopyOnWriteArrayList<>();
    /** The metadata epoch each write batch carried ({@link InternalProtocol#EPOCH_HEADER}; "none" without one). */
    private final List<String> writeEpochs = new CopyOnWriteArrayList<>();
    private final CompletableFuture<Void> gate = new CompletableFuture<>();
    private final ServerHarness server;
    private final ClusterNode node;

    /** @param gatedPath {@link InternalProtocol#WRITES_PATH} or {@link InternalProtocol#READS_PATH} */
    GatedPeer(StorageEngine engine, HybridLogicalClock clock, String gatedPath) throws Exception {
        this(engine, clock, gatedPath, io.ringkv.http.h1.H1Limits.defaults().bodyBytesMax());
    }

    /** @param bodyBytesMax the peer limits request bodies as a node with that {@code --max-body} ({@link ServerHarness#start(io.ringkv.http.server.HttpHandler, long)}) */
    GatedPeer(StorageEngine engine, HybridLogicalClock clock, String gatedPath, long bodyBytesMax) throws Exception {
        this.server = ServerHarness.startFor(url -> gate(TestAuth.handler(url, engine, clock), gatedPath), bodyBytesMax);
        this.node = ClusterNode.parse(server.url());
    }

    private HttpHandler gate(HttpHandler internal, String gatedPath) {
        return request -> {
            String entry = switch (request.path()) {
                case InternalProtocol.WRITES_PATH -> "writes " + WriteBatchCodec.decodeRequest(request.body()).keys().size();
                case InternalProtocol.READS_PATH -> "reads " + ReadBatchCodec.decodeRequest(request.body()).size();
                default -> request.path();
            };
            if (request.path().equals(InternalProtocol.WRITES_PATH)) {
                writeEpochs.add(request.headers().first(InternalProtocol.EPOCH_HEADER).orElse("none"));
            }
            boolean first;
            synchronized (seen) {
                first = request.path().equals(gatedPath) && seen.stream().noneMatch(e -> e.startsWith(kind(gatedPath)));
                seen.add(entry);
            }
            if (!first) {
                return internal.handle(request);
            }
            return gate.thenCompose(ignored -> {
                try {
                    return internal.handle(request);
                } catch (Exception e) {
                    return CompletableFuture.<Response>failedFuture(e);
                }
            });
        };
    }

    private static String kind(String path) {
        return path.equals(InternalProtocol.WRITES_PATH) ? "writes " : "reads ";
    }

    ClusterNode node() {
        return node;
    }

    /** Lets the first batch be answered (and every later one was not held anyway). */
    void open() {
        gate.complete(null);
    }

    List<String> seen() {
        return seen;
    }

    /** The epoch each write batch carried, in the order they came. */
    List<String> writeEpochs() {
        return writeEpochs;
    }

    /** Calls carried by the batches of {@code path} the peer took, summed. */
    int batched(String path) {
        String prefix = kind(path);
        return seen.stream().filter(e -> e.startsWith(prefix)).mapToInt(e -> Integer.parseInt(e.substring(prefix.length()))).sum();
    }

    /** Waits (at most 10 s) until the peer took {@code requests} requests. */
    void awaitSeen(int requests) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (seen.size() < requests && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(seen.size(), is(requests));
    }

    @Override
    public void close() {
        gate.complete(null);
        server.close();
    }
}
