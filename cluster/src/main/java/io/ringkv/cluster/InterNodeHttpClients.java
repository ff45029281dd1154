package io.ringkv.cluster;

import io.ringkv.http.client.RingHttpClient;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one place that creates the inter-node {@link HttpClient}. Everything else sees only the
 * {@code java.net.http} API, so replacing the JDK implementation by our own client is a change
 * to {@link #create} alone.
 *
 * <p>Either implementation keeps connections alive and pooled and runs its completions on the
 * executor it is given instead of an unbounded cached pool. Ours speaks cleartext HTTP/2 by prior
 * knowledge by default ({@link InterNodeTransport}): one connection per peer carries every
 * concurrent replica call as a stream, so a burst of calls to a peer shares its writes and its
 * reads instead of taking a connection each. To https peers the same client speaks TLS and
 * offers h2 by ALPN (prior knowledge applies to cleartext only), verifying the peers'
 * certificates against {@link InterNodeTransport#trust()}.
 */
public final class InterNodeHttpClients {

    /** Completions waiting for a thread; beyond this the submitting thread runs them itself. */
    public static final int EXECUTOR_QUEUE_MAX = 16_384;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofMillis(500);
    /**
     * An HTTP/2 connection to a peer that received nothing for this long gets a PING, and is closed
     * when nothing comes back within the replica request timeout (RingHttpClient's defaults, 30 s
     * and 10 s, suit idle connections to servers on the internet). A peer behind a cut link kept its
     * connection, and every call to it failed on it, for about 40 s; after a 30 s partition the
     * healed peer was still unreachable for 10 s. The PING waits as long as a request would, so a
     * slow peer's connection is not given up before a request on it could time out. Under load a
     * connection is never quiet for a second, so no PING is sent; an idle one costs one a second.
     */
    public static final Duration PEER_PING_INTERVAL = Duration.ofSeconds(1);

    private InterNodeHttpClients() {
    }

    /**
     * @param executor       runs the JDK client's response handling and completions (ours completes
     *                       inline); the caller owns it and shuts it down after closing the client
     *                       ({@link #newExecutor} makes a suitable one)
     * @param connectTimeout bound on establishing a connection to a peer
     */
    public static HttpClient create(ExecutorService executor, Duration connectTimeout) {
        return create(InterNodeTransport.defaults(), executor, connectTimeout);
    }

    /** With the default replica request timeout ({@link ReplicaClient#DEFAULT_REQUEST_TIMEOUT}). */
    public static HttpClient create(InterNodeTransport transport, ExecutorService executor, Duration connectTimeout) {
        return create(transport, executor, connectTimeout, ReplicaClient.DEFAULT_REQUEST_TIMEOUT);
    }

    /**
     * @param transport      which client and protocol to build
     * @param requestTimeout the replica request timeout: how long an HTTP/2 connection's PING may
     *                       stay unanswered before the connection is given up
     */
    public static HttpClient create(InterNodeTransport transport, ExecutorService executor, Duration connectTimeout,
                                    Duration requestTimeout) {
        boolean h2 = transport.protocol() == InterNodeProtocol.H2;
        HttpClient.Builder builder = switch (transport.client()) {
            // Our client completes a reply's future on its network thread: the coordinator's
            // continuation (count the reply, decide, queue the public answer) does not block, so a
            // hand-off to a pool thread would only add a wake-up and a context switch per reply.
            // Continuations that may block move to an executor themselves (ReplicatedOperation).
            // The direct transport carries replica calls; this client still carries probes and
            // the metadata group's calls, as with RING.
            case RING, DIRECT -> RingHttpClient.newBuilder()
                    .http2PingInterval(PEER_PING_INTERVAL)
                    .http2PingTimeout(requestTimeout)
                    .http2PriorKnowledge(h2)
                    .connectionsPerHost(transport.connectionsPerPeer())
                    .executor(INLINE)
                    // A coordinator may call from a server's event loop (HeadAdmission.onLoop):
                    // a peer's name is resolved on the pool, never there.
                    .resolverExecutor(executor);
            case JDK -> HttpClient.newBuilder().executor(executor);
        };
        if (transport.trust() != null) {
            builder.sslContext(transport.trust());
        }
        return builder
                .version(h2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
                .connectTimeout(connectTimeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    /** Runs completions on the thread that completes the exchange. */
    private static final java.util.concurrent.Executor INLINE = Runnable::run;

    /**
     * A fixed pool of {@code threads} daemon threads named {@code ringkv-internode-N}, with a
     * queue of {@link #EXECUTOR_QUEUE_MAX}. When the queue is full the submitting thread runs the
     * task (caller-runs) rather than dropping it: a dropped completion would leave a request
     * future incomplete until its timeout, and running it inline slows the producer, which is the
     * back-pressure we want.
     */
    public static ExecutorService newExecutor(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be positive, got " + threads);
        }
        return new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(EXECUTOR_QUEUE_MAX), namedDaemons("ringkv-internode-"),
                new ThreadPoolExecutor.CallerRunsPolicy());
    }

    private static ThreadFactory namedDaemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
