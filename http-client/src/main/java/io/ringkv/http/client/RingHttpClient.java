package io.ringkv.http.client;

import io.ringkv.http.client.internal.ClientBuilder;
import io.ringkv.http.client.internal.RingClient;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Entry point of ringkv's {@link HttpClient} implementation: change {@code HttpClient.newBuilder()}
 * to {@code RingHttpClient.newBuilder()} and keep the rest of the code.
 *
 * <p>The clients returned are ordinary {@code java.net.http.HttpClient}s: requests are built with
 * {@link java.net.http.HttpRequest#newBuilder()}, bodies with the JDK's {@code BodyPublishers} and
 * {@code BodyHandlers} (or your own publishers and subscribers). Callbacks into user code (body
 * subscribers, cookie handlers, authenticators, dependent stages of returned futures) run on the
 * client's executor, never on a network event loop.
 */
public final class RingHttpClient {

    private RingHttpClient() {
    }

    /** A client with default settings, as {@link HttpClient#newHttpClient()} describes them. */
    public static HttpClient newHttpClient() {
        return newBuilder().build();
    }

    /** A builder with the standard settings plus ringkv's own ({@link Builder}). */
    public static Builder newBuilder() {
        return new ClientBuilder();
    }

    /**
     * What {@code client} holds open now: its connections per origin and protocol, and the
     * requests in flight on them ({@link ClientStats}). Reading it costs the client's requests
     * nothing (the client keeps the figures as connections open and close, not per request), and
     * a snapshot walks the open connections once, so it suits a metrics scrape every few seconds.
     *
     * @return empty for a client that is not one of ringkv's (the JDK's, say)
     */
    public static Optional<ClientStats> stats(HttpClient client) {
        return client instanceof RingClient ours ? Optional.of(ours.stats()) : Optional.empty();
    }

    /**
     * {@link HttpClient.Builder} with ringkv's additional options. The standard methods behave as
     * documented by the JDK; each returns this builder typed as {@code RingHttpClient.Builder} so
     * that standard and additional options chain in any order.
     *
     * <p>Threading: a builder is not thread-safe; {@link #build()} copies its settings, so a builder
     * may be reused after building.
     */
    public interface Builder extends HttpClient.Builder {

        /** Default of {@link #connectionsPerHost(int)}. */
        int CONNECTIONS_PER_HOST_DEFAULT = 64;
        /** Default of {@link #http2StreamWindowBytes(int)}: large, so one stream can fill a fast link. */
        int HTTP2_STREAM_WINDOW_BYTES_DEFAULT = 16 * 1024 * 1024;
        /** Default of {@link #http2ConnectionWindowBytes(int)}. */
        int HTTP2_CONNECTION_WINDOW_BYTES_DEFAULT = 64 * 1024 * 1024;
        /** Default of {@link #idleTimeout(Duration)}. */
        Duration IDLE_TIMEOUT_DEFAULT = Duration.ofMinutes(5);
        /** Default of {@link #http2PingInterval(Duration)}. */
        Duration HTTP2_PING_INTERVAL_DEFAULT = Duration.ofSeconds(30);
        /** Default of {@link #http2PingTimeout(Duration)}. */
        Duration HTTP2_PING_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
        /** Default of {@link #syncSendSpin(Duration)}. */
        Duration SYNC_SEND_SPIN_DEFAULT = Duration.ofNanos(50_000);

        /**
         * Speak HTTP/2 on {@code http://} URIs without an {@code Upgrade} round trip (RFC 9113 §3.3,
         * "prior knowledge"). Only for servers known to accept it; off by default.
         */
        Builder http2PriorKnowledge(boolean enabled);

        /** Most HTTP/1.1 connections open at once to one origin; requests beyond it wait for one. */
        Builder connectionsPerHost(int connections);

        /** The receive window this client advertises for each HTTP/2 stream (SETTINGS_INITIAL_WINDOW_SIZE). */
        Builder http2StreamWindowBytes(int bytes);

        /** The receive window of each HTTP/2 connection as a whole (grown by WINDOW_UPDATE on stream 0). */
        Builder http2ConnectionWindowBytes(int bytes);

        /** How long a pooled connection may stay unused before it is closed. */
        Builder idleTimeout(Duration timeout);

        /**
         * Where host names are resolved before a connect: the system resolver blocks, so it must not
         * run on an event loop. By default on the client's executor ({@link #executor}); a client
         * whose executor runs tasks on the calling thread and that is called from event loops
         * names another one here.
         */
        Builder resolverExecutor(java.util.concurrent.Executor executor);

        /**
         * After this long without receiving anything on an HTTP/2 connection, the client sends a
         * PING (RFC 9113 §6.7) to learn whether the peer is still there; {@link Duration#ZERO}
         * disables the probe.
         */
        Builder http2PingInterval(Duration interval);

        /** How long a PING may go unanswered (nothing received) before the connection is closed. */
        Builder http2PingTimeout(Duration timeout);

        /**
         * Whether HTTP/2 servers may push responses (RFC 9113 §8.4). On by default, as in the JDK
         * client: pushes reach the {@link java.net.http.HttpResponse.PushPromiseHandler} given to
         * {@code sendAsync}, and are refused for requests sent without one. {@code false} sends
         * SETTINGS_ENABLE_PUSH 0, after which a PUSH_PROMISE is a connection error.
         */
        Builder http2ServerPush(boolean enabled);

        /**
         * How long a thread in a synchronous {@code send} may busy-wait for its answer before it
         * parks; {@link Duration#ZERO} never spins. A quick answer then costs no thread wake-up,
         * which on a machine with idle CPUs (a quiet virtual machine above all) is the wake-up of
         * a halted CPU. The client bounds the cost: at most one caller per CPU but one spins at a
         * time, none on a single CPU, at most one spin per {@code send} times out, and spinning
         * mostly stops while answers keep arriving later than this. {@code sendAsync} never spins.
         */
        Builder syncSendSpin(Duration spin);

        @Override
        Builder cookieHandler(CookieHandler cookieHandler);

        @Override
        Builder connectTimeout(Duration duration);

        @Override
        Builder sslContext(SSLContext sslContext);

        @Override
        Builder sslParameters(SSLParameters sslParameters);

        @Override
        Builder executor(Executor executor);

        @Override
        Builder followRedirects(HttpClient.Redirect policy);

        @Override
        Builder version(HttpClient.Version version);

        @Override
        Builder priority(int priority);

        @Override
        Builder proxy(ProxySelector proxySelector);

        @Override
        Builder authenticator(Authenticator authenticator);

        @Override
        Builder localAddress(InetAddress localAddr);

        @Override
        HttpClient build();
    }
}
