package io.ringkv.node;

import io.ringkv.http.client.RingHttpClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A closed-loop mix of public requests against some nodes, weighted like a store's traffic: mostly
 * PUT and GET (some with {@code replicas=3/3} or {@code 1/3}), then DELETE, ranges, status,
 * metrics and malformed requests (which get {@code 400}), over HTTP/1.1 and over h2c by prior
 * knowledge. It exists to run the node's code, not to measure it.
 *
 * <p>Threading: one thread calls {@link #run} and {@link #trickle}, each of which blocks until its
 * time is up and every request it sent has finished; the client's threads count the answers.
 */
final class MixedLoad {
    private static final int IN_FLIGHT = 48;
    private static final int KEYS = 4_000;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final int CHECK_EVERY = 64;

    private final List<String> urls;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final byte[] value = new byte[100];
    /** Requests sent over all runs: the mix goes on where the last run stopped. Only the sending thread uses it. */
    private long sent;

    MixedLoad(List<String> urls) {
        this.urls = List.copyOf(urls);
    }

    /**
     * Sends requests as fast as they are answered ({@value #IN_FLIGHT} at a time) until {@code done}
     * says so (asked about every {@value #CHECK_EVERY} requests) or {@code max} has passed, then
     * waits for the last answers.
     */
    void run(Duration max, BooleanSupplier done) throws InterruptedException {
        send(max, done, 0);
    }

    /**
     * As {@link #run}, but at most {@code perSecond} requests a second: enough to keep the code they
     * run in use (the JIT drops queued compilations of methods nobody calls any more), little
     * enough to leave the CPU to the JIT.
     */
    void trickle(Duration max, int perSecond, BooleanSupplier done) throws InterruptedException {
        send(max, done, 1_000_000_000L / perSecond);
    }

    private void send(Duration max, BooleanSupplier done, long intervalNanos) throws InterruptedException {
        // ringkv's own client: it costs a fraction of the JDK's per request, so more of the
        // warm-up's CPU goes to the node code it is there to compile.
        try (HttpClient h1 = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
             HttpClient h2c = RingHttpClient.newBuilder().version(HttpClient.Version.HTTP_2).http2PriorKnowledge(true).build()) {
            Semaphore permits = new Semaphore(IN_FLIGHT);
            long start = System.nanoTime();
            long end = start + max.toNanos();
            for (long i = 0; System.nanoTime() - end < 0 && (i % CHECK_EVERY != 0 || !done.getAsBoolean()); i++) {
                if (intervalNanos > 0) {
                    long wait = start + i * intervalNanos - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(Duration.ofNanos(wait));
                    }
                }
                permits.acquire();
                long n = sent++;
                HttpClient client = (n & 3) == 3 ? h2c : h1;
                client.sendAsync(request(urls.get((int) (n % urls.size())), n), HttpResponse.BodyHandlers.discarding())
                        .whenComplete((response, error) -> {
                            (error == null ? answered : failed).incrementAndGet();
                            permits.release();
                        });
            }
            permits.acquire(IN_FLIGHT);
        }
    }

    long answered() {
        return answered.get();
    }

    long failed() {
        return failed.get();
    }

    private HttpRequest request(String node, long i) {
        String key = "warm-" + ThreadLocalRandom.current().nextInt(KEYS);
        String replicas = switch ((int) (i % 7)) {
            case 0 -> "&replicas=3/3";
            case 1 -> "&replicas=1/3";
            default -> "";
        };
        URI entity = URI.create(node + "/v0/entity?id=" + key + replicas);
        int pick = (int) (i % 100);
        HttpRequest.Builder builder;
        if (pick < 45) {
            builder = HttpRequest.newBuilder(entity).PUT(HttpRequest.BodyPublishers.ofByteArray(value));
        } else if (pick < 90) {
            builder = HttpRequest.newBuilder(entity);
        } else if (pick < 95) {
            builder = HttpRequest.newBuilder(entity).DELETE();
        } else if (pick < 96) {
            builder = HttpRequest.newBuilder(URI.create(node + "/v0/entities?start=warm-1&end=warm-2"));
        } else if (pick < 97) {
            builder = HttpRequest.newBuilder(URI.create(node + "/v0/status"));
        } else if (pick < 98) {
            builder = HttpRequest.newBuilder(URI.create(node + "/metrics"));
        } else if (pick < 99) {
            builder = HttpRequest.newBuilder(URI.create(node + "/v0/entity?id=" + key + "&replicas=4/3"));
        } else {
            builder = HttpRequest.newBuilder(URI.create(node + "/v0/entity?id="));
        }
        return builder.timeout(REQUEST_TIMEOUT).build();
    }
}
