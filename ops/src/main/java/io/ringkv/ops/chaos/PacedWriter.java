package io.ringkv.ops.chaos;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open-loop writer: PUTs write number 0, 1, 2, ... ({@link HandoffKeys}) at a constant rate,
 * round robin through the given nodes with the default {@code replicas}, and records which writes
 * were acknowledged ({@code 201}). At most {@link #IN_FLIGHT_MAX} requests are outstanding; a
 * write due while that many are is sent as soon as one returns, so a slow cluster shows as a lower
 * achieved rate ({@link #issued}), not as a pile of requests.
 *
 * <p>Threading: {@link #start} once, {@link #stop} once, from one thread; the pacing runs on a
 * thread of its own, answers arrive on the HTTP client's threads; the counters and
 * {@link #acknowledged} may be read from any thread at any time.
 */
final class PacedWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PacedWriter.class);
    static final int IN_FLIGHT_MAX = 256;
    /** Longer than the coordinator's deadline, so a coordinator that answers at all is heard. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final long TICK_MICROS = 1_000;

    private final List<String> nodes;
    private final double perSecond;
    private final HandoffKeys keys;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "handoff-writer");
        thread.setDaemon(true);
        return thread;
    });
    private final Semaphore inFlight = new Semaphore(IN_FLIGHT_MAX);
    private final BitSet acknowledged = new BitSet();
    private final AtomicLong issued = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private long startNanos;

    /** @param nodes base URLs the writes go through, in turn */
    PacedWriter(List<String> nodes, double perSecond, HandoffKeys keys) {
        if (nodes.isEmpty() || !(perSecond > 0)) {
            throw new IllegalArgumentException("a writer needs a node and a positive rate, got " + nodes + ", " + perSecond);
        }
        this.nodes = List.copyOf(nodes);
        this.perSecond = perSecond;
        this.keys = keys;
    }

    void start() {
        startNanos = System.nanoTime();
        pacer.scheduleAtFixedRate(this::sendDue, 0, TICK_MICROS, TimeUnit.MICROSECONDS);
    }

    /** Stops sending and waits (up to the request timeout) for the answers still outstanding. */
    void stop() throws InterruptedException {
        pacer.shutdownNow();
        pacer.awaitTermination(5, TimeUnit.SECONDS);
        if (inFlight.tryAcquire(IN_FLIGHT_MAX, REQUEST_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS)) {
            inFlight.release(IN_FLIGHT_MAX);
        } else {
            LOG.warn("{} writes still unanswered after the request timeout", IN_FLIGHT_MAX - inFlight.availablePermits());
        }
    }

    @Override
    public void close() {
        pacer.shutdownNow();
        http.close();
    }

    /** Writes sent so far; write numbers below this have been sent. */
    long issued() {
        return issued.get();
    }

    /** Writes answered with anything but {@code 201}, or not answered. */
    long failed() {
        return failed.get();
    }

    /** A copy of the set of acknowledged write numbers. */
    BitSet acknowledged() {
        synchronized (acknowledged) {
            return (BitSet) acknowledged.clone();
        }
    }

    private void sendDue() {
        long due = (long) ((System.nanoTime() - startNanos) / 1e9 * perSecond) + 1;
        while (issued.get() < due && inFlight.tryAcquire()) {
            send(issued.getAndIncrement());
        }
    }

    private void send(long sequence) {
        String node = nodes.get((int) (sequence % nodes.size()));
        HttpRequest request = HttpRequest.newBuilder(URI.create(node + "/v0/entity?id=" + HandoffKeys.key(sequence)))
                .timeout(REQUEST_TIMEOUT).PUT(HttpRequest.BodyPublishers.ofByteArray(keys.value(sequence))).build();
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
            try {
                if (error == null && response.statusCode() == 201) {
                    synchronized (acknowledged) {
                        acknowledged.set((int) sequence);
                    }
                } else {
                    long failures = failed.incrementAndGet();
                    if (failures == 1 || failures % 1000 == 0) {
                        LOG.warn("{} writes failed so far; the latest, {} through {}: {}", failures, HandoffKeys.key(sequence),
                                node, error != null ? error.toString() : "HTTP " + response.statusCode());
                    }
                }
            } finally {
                inFlight.release();
            }
        });
    }
}
