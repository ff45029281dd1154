package io.ringkv.ops.chaos;

import io.ringkv.ops.chaos.Operation.OpType;
import io.ringkv.ops.chaos.Operation.Outcome;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;

/**
 * Clients that PUT, DELETE and GET a small set of keys through random nodes and record every
 * operation's invocation and outcome. Values are unique in the run ({@code c<client>-<n>}), so
 * the checker can tell which write a read saw.
 *
 * <p>Each client is one platform thread that waits for each answer before its next operation,
 * paced so that all clients together stay near the target rate. The clients' random choices
 * come from the run's seed; what the cluster answers (and so the history) still depends on
 * timing.
 *
 * <p>Threading: {@link #start} once, {@link #stop} from any thread; {@link #history} after stop.
 */
final class Workload {
    /** Longer than the coordinator's deadline, so a coordinator that answers at all is heard. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private final List<String> keys;
    private final IntFunction<String> nodeUrls;
    private final int nodeCount;
    private final int clients;
    private final double opsPerSecond;
    private final long seed;
    private final long startNanos;
    private final ConcurrentLinkedQueue<Operation> history = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private volatile boolean stopped;

    /**
     * @param startNanos the run's time origin ({@link System#nanoTime()}), shared with the checker's reads
     */
    Workload(List<String> keys, IntFunction<String> nodeUrls, int nodeCount, int clients, double opsPerSecond,
             long seed, long startNanos) {
        this.keys = List.copyOf(keys);
        this.nodeUrls = nodeUrls;
        this.nodeCount = nodeCount;
        this.clients = clients;
        this.opsPerSecond = opsPerSecond;
        this.seed = seed;
        this.startNanos = startNanos;
    }

    void start() {
        for (int c = 0; c < clients; c++) {
            int client = c;
            Thread thread = new Thread(() -> runClient(client), "chaos-client-" + c);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    void stop() throws InterruptedException {
        stopped = true;
        for (Thread thread : threads) {
            thread.join(REQUEST_TIMEOUT.toMillis() * 2);
        }
        http.close();
    }

    List<Operation> history() {
        return List.copyOf(history);
    }

    private void runClient(int client) {
        Random random = new Random(seed * 31 + client);
        long pauseNanos = (long) (1e9 * clients / opsPerSecond);
        int sequence = 0;
        while (!stopped) {
            long began = System.nanoTime();
            String key = keys.get(random.nextInt(keys.size()));
            int node = random.nextInt(nodeCount);
            int dice = random.nextInt(100);
            OpType type = dice < 50 ? OpType.PUT : dice < 60 ? OpType.DELETE : OpType.GET;
            String value = type == OpType.PUT ? "c" + client + "-" + sequence++ : null;
            history.add(perform(client, type, key, value, node));
            long left = pauseNanos - (System.nanoTime() - began);
            if (left > 0) {
                try {
                    Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private Operation perform(int client, OpType type, String key, String value, int node) {
        URI uri = URI.create(nodeUrls.apply(node) + "/v0/entity?id=" + URLEncoder.encode(key, StandardCharsets.UTF_8));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT);
        switch (type) {
            case PUT -> request.PUT(HttpRequest.BodyPublishers.ofString(value));
            case DELETE -> request.DELETE();
            case GET -> request.GET();
        }
        long invoke = System.nanoTime() - startNanos;
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            long complete = System.nanoTime() - startNanos;
            int status = response.statusCode();
            String read = type == OpType.GET && status == 200 ? response.body() : value;
            return new Operation(client, type, key, read, node, invoke, complete, outcomeOf(type, status), "HTTP " + status);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Operation(client, type, key, value, node, invoke, System.nanoTime() - startNanos,
                    Outcome.UNKNOWN, "interrupted");
        } catch (IOException e) {
            return new Operation(client, type, key, value, node, invoke, System.nanoTime() - startNanos,
                    outcomeOf(e), e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /**
     * A write is acknowledged by 201/202. A 4xx and a 503 are refusals before any replica saw
     * the write. A 504 (too few replicas in time), a 500 and anything else may have reached
     * replicas: unknown.
     */
    static Outcome outcomeOf(OpType type, int status) {
        return switch (type) {
            case PUT -> status == 201 ? Outcome.OK : refusedOrUnknown(status);
            case DELETE -> status == 202 ? Outcome.OK : refusedOrUnknown(status);
            case GET -> status == 200 || status == 404 ? Outcome.OK : Outcome.FAIL;
        };
    }

    private static Outcome refusedOrUnknown(int status) {
        return status == 503 || (status >= 400 && status < 500) ? Outcome.FAIL : Outcome.UNKNOWN;
    }

    /** No connection means the request never left: failed. Anything after connecting: unknown. */
    static Outcome outcomeOf(IOException e) {
        return e instanceof ConnectException || e instanceof HttpConnectTimeoutException ? Outcome.FAIL : Outcome.UNKNOWN;
    }
}
