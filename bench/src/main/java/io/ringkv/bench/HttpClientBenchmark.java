package io.ringkv.bench;

import io.ringkv.bench.client.BenchClient;
import io.ringkv.bench.client.BenchServer;
import io.ringkv.bench.client.ClientMeter;
import io.ringkv.bench.client.SelfSignedCertificate;
import java.net.URI;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * Our {@code java.net.http.HttpClient} next to the JDK's and Jetty 12's, each against the same
 * local Jetty 12 server ({@link BenchServer}) started for the trial on 127.0.0.1.
 *
 * <p>One operation is one complete request: GET of {@code size} bytes, or POST of {@code size}
 * bytes answered with 2 bytes. Two ways of calling:
 * <ul>
 *   <li>{@link #oneCaller}: one thread, synchronous {@code send}; ops/s is requests/s and the
 *       average latency is its inverse;</li>
 *   <li>{@link #inFlight64}: one thread keeps 64 asynchronous requests in flight on the one
 *       client (a semaphore of 64 permits: each operation takes a permit and starts a request,
 *       whose completion returns it), so ops/s is again requests/s.</li>
 * </ul>
 * HTTP/2 without TLS: ours and Jetty's by prior knowledge; the JDK's cannot, so it asks for
 * HTTP_2 on {@code http://} and upgrades its first request ({@code Upgrade: h2c}), which the
 * server accepts. Setup sends a GET first (so the JDK upgrades on a request without a body) and
 * then checks that the bound request really goes over the protocol asked for. A combination a
 * client cannot do fails setup with an exception whose message starts with
 * {@value #SKIPPED_MARKER}; JMH goes on with the next one and the report lists it as skipped.
 *
 * <p>Run with {@code -prof gc -prof io.ringkv.bench.client.ClientProfiler} for bytes per request
 * (client only) and threads started by the client; bench/client-bench.sh does.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HttpClientBenchmark {
    public static final String SKIPPED_MARKER = "SKIPPED:";
    static final int IN_FLIGHT = 64;
    private static final long DRAIN_SECONDS_MAX = 120;
    /** Requests sent in setup after the probe: connections open, code paths loaded. */
    private static final int SETUP_REQUESTS = 16;

    @Param({"JDK", "JETTY", "RING"})
    public BenchClient.Kind client;

    @Param({"GET", "POST"})
    public String method;

    @Param({"1", "8192", "122880", "1048576"})
    public int size;

    @Param({"H1", "H2"})
    public BenchClient.Protocol protocol;

    @Param({"false", "true"})
    public boolean tls;

    /**
     * POST bodies of the java.net.http clients. bench/client-bench.sh sets it per pass: NO_COPY for the
     * main table (compares the clients, not the copy), JDK for the smaller ofByteArray table.
     */
    @Param({"JDK"})
    public BenchClient.Publisher publisher;

    private SelfSignedCertificate certificate;
    private BenchServer server;
    private BenchClient bench;
    private final Semaphore window = new Semaphore(IN_FLIGHT);
    private final AtomicReference<Throwable> asyncFailure = new AtomicReference<>();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        certificate = tls ? SelfSignedCertificate.generate() : null;
        server = new BenchServer(size, certificate);
        SSLContext context = tls ? certificate.trustingContext() : null;
        boolean post = method.equals("POST");
        byte[] body = post ? new byte[size] : null;
        if (body != null) {
            Arrays.fill(body, (byte) 'p');
        }
        ClientMeter.markClientStart();
        bench = BenchClient.create(client, protocol, context, URI.create(server.base() + "/bench"), body,
                publisher, post ? BenchServer.POST_ANSWER.length() : size);
        checkProtocol();
    }

    private void checkProtocol() throws Exception {
        String wanted = protocol == BenchClient.Protocol.H2 ? "HTTP/2" : "HTTP/1.1";
        String spoken;
        try {
            bench.probe();
            spoken = bench.send();
            for (int i = 1; i < SETUP_REQUESTS; i++) {
                spoken = bench.send();
            }
        } catch (Exception e) {
            throw new IllegalStateException(SKIPPED_MARKER + " " + combination() + " failed in setup: " + e, e);
        }
        if (!spoken.equals(wanted)) {
            throw new IllegalStateException(SKIPPED_MARKER + " " + combination() + " spoke " + spoken
                    + " where " + wanted + " was asked for");
        }
    }

    private String combination() {
        return "client=" + client + " method=" + method + " size=" + size + " protocol=" + protocol + " tls=" + tls;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        ClientMeter.markTrialEnd(); // before anything here allocates (see its doc)
        // Stdout of the fork lands in JMH's log: which threads the client left running.
        System.out.println("client threads started: " + ClientMeter.clientThreadsStarted()
                + "; live non-server threads: " + ClientMeter.liveNonServerThreads());
        try (AutoCloseable c = certificate; AutoCloseable s = server; AutoCloseable b = bench) {
            // closes the client, then the server, then deletes the keystore
        }
    }

    @Benchmark
    @Threads(1)
    public String oneCaller() throws Exception {
        return bench.send();
    }

    @Benchmark
    @Threads(1)
    public void inFlight64() throws Throwable {
        window.acquire();
        bench.sendAsync().whenComplete((ok, failure) -> {
            if (failure != null) {
                asyncFailure.compareAndSet(null, failure);
            }
            window.release();
        });
        Throwable failure = asyncFailure.get();
        if (failure != null) {
            throw failure;
        }
    }

    /** Lets the requests still in flight finish, so that they do not spill into the next iteration. */
    @TearDown(Level.Iteration)
    public void drain() throws InterruptedException {
        if (!window.tryAcquire(IN_FLIGHT, DRAIN_SECONDS_MAX, TimeUnit.SECONDS)) {
            throw new IllegalStateException("requests still in flight after " + DRAIN_SECONDS_MAX + " s");
        }
        window.release(IN_FLIGHT);
    }
}
