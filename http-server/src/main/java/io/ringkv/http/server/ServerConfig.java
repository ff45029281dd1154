package io.ringkv.http.server;

import io.ringkv.http.h1.H1Limits;
import io.ringkv.net.ChannelOptions;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of an {@link HttpServer}. Build with {@link #builder()}; every setting has a default.
 *
 * @param host              interface to listen on; default {@value #HOST_DEFAULT} (all interfaces)
 * @param port              TCP port; 0 picks an ephemeral one ({@link HttpServer#port()} tells which)
 * @param eventLoops        selector threads; default one per core
 * @param handlerThreads    threads of the bounded handler executor; default
 *                          {@code max(8, 4 x cores)}: handlers may block briefly on storage (a
 *                          RocksDB read, a write waiting for its WAL sync), so a few threads per
 *                          core keep the cores busy while some wait, without a thread per request
 * @param inFlightMax       requests admitted at once (reading their body, in a handler, or
 *                          streaming a response); past it the server answers 503 at once from the
 *                          event loop. Default {@value #IN_FLIGHT_MAX_DEFAULT}. Worst-case
 *                          buffered request bodies = inFlightMax x {@code h1Limits.bodyBytesMax()}
 * @param inFlightReserve   of {@code inFlightMax}, the slots only requests that the handler's
 *                          {@link HeadAdmission#priority} marks may take: other requests get 503
 *                          once {@code inFlightMax - inFlightReserve} are in flight. Default 0
 * @param connectionsMax    open connections; further ones are closed at once. Default
 *                          {@value #CONNECTIONS_MAX_DEFAULT}
 * @param idleTimeout       a keep-alive connection with nothing in progress, or a request body
 *                          that makes no progress, is closed after this. Default 60 s
 * @param headerReadTimeout a request head (request line and fields) must arrive within this from
 *                          its first byte (or from connect, for the first request): a client
 *                          trickling a head cannot hold a connection. Default 10 s
 * @param h1Limits          HTTP/1.1 size limits, including the body limit (413)
 * @param shutdownGrace     default grace of {@link HttpServer#close()}: in-flight requests may
 *                          finish within it, then the rest are cut off. Default 10 s
 * @param channelOptions    socket write water marks (bounding memory per streamed response) and
 *                          lingering close
 * @param bodyMemoryMax     bytes of request bodies being received, all connections together;
 *                          a body that would pass it gets 503 and its connection closes. Default a
 *                          quarter of the maximum heap
 * @param bodyRateMin       bytes per second a request body must average over each window of
 *                          {@link #BODY_RATE_WINDOW}, or it gets 408 and its connection closes.
 *                          Default {@value #BODY_RATE_MIN_DEFAULT}
 * @param tls               null (the default): cleartext, HTTP/1.1 and h2c (prior knowledge or
 *                          {@code Upgrade: h2c}) on one port, chosen by the first bytes. Set:
 *                          every connection is TLS and speaks what ALPN chose, see {@link ServerTls}
 */
public record ServerConfig(String host, int port, int eventLoops, int handlerThreads, int inFlightMax,
                           int inFlightReserve, int connectionsMax, Duration idleTimeout, Duration headerReadTimeout, H1Limits h1Limits,
                           Duration shutdownGrace, ChannelOptions channelOptions, long bodyMemoryMax, int bodyRateMin,
                           ServerTls tls) {

    public static final String HOST_DEFAULT = "0.0.0.0";
    /**
     * Sized by Little's law for a stall, not for the steady state: requests in flight are the
     * arrival rate times the time they take, so a server taking 1,000 requests a second holds
     * about a hundred in flight when they take 100 ms, and a thousand during a one-second stall
     * (a GC pause, its cores taken by a neighbour). 256 turned every stall of a quarter second at
     * that rate into 503s (ringkv's nodes, membership changes on two shared cores: all the failed
     * requests were this budget's); 1,024 rides out a second of it and still bounds the queueing:
     * at 20,000 requests a second it is 50 ms of work.
     */
    public static final int IN_FLIGHT_MAX_DEFAULT = 1024;
    public static final int CONNECTIONS_MAX_DEFAULT = 10_000;
    public static final Duration IDLE_TIMEOUT_DEFAULT = Duration.ofSeconds(60);
    public static final Duration HEADER_READ_TIMEOUT_DEFAULT = Duration.ofSeconds(10);
    public static final Duration SHUTDOWN_GRACE_DEFAULT = Duration.ofSeconds(10);
    /** 1 KiB/s: a slow uploader over a poor link still passes; a body trickled to hold memory does not. */
    public static final int BODY_RATE_MIN_DEFAULT = 1024;
    /** The window the body rate is averaged over (the first one starts with the body). */
    public static final Duration BODY_RATE_WINDOW = Duration.ofSeconds(10);

    public static long bodyMemoryMaxDefault() {
        return Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 4);
    }

    public ServerConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(h1Limits, "h1Limits");
        Objects.requireNonNull(channelOptions, "channelOptions");
        requireRange("port", port, 0, 65535);
        requireRange("eventLoops", eventLoops, 1, 1024);
        requireRange("handlerThreads", handlerThreads, 1, 10_000);
        requireRange("inFlightMax", inFlightMax, 1, 1_000_000);
        requireRange("inFlightReserve", inFlightReserve, 0, inFlightMax - 1);
        requireRange("connectionsMax", connectionsMax, 1, 10_000_000);
        requirePositive("idleTimeout", idleTimeout);
        if (bodyMemoryMax < 1 || bodyRateMin < 0) {
            throw new IllegalArgumentException("bodyMemoryMax must be positive and bodyRateMin not negative, got "
                    + bodyMemoryMax + ", " + bodyRateMin);
        }
        requirePositive("headerReadTimeout", headerReadTimeout);
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        if (shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdownGrace must not be negative");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every setting at its default. */
    public static ServerConfig defaults() {
        return builder().build();
    }

    public static int handlerThreadsDefault() {
        return Math.max(8, 4 * Runtime.getRuntime().availableProcessors());
    }

    private static void requireRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], got " + value);
        }
    }

    private static void requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }

    /** Mutable builder; not thread-safe. */
    public static final class Builder {
        private String host = HOST_DEFAULT;
        private int port;
        private int eventLoops = Runtime.getRuntime().availableProcessors();
        private int handlerThreads = handlerThreadsDefault();
        private int inFlightMax = IN_FLIGHT_MAX_DEFAULT;
        private int inFlightReserve;
        private int connectionsMax = CONNECTIONS_MAX_DEFAULT;
        private long bodyMemoryMax = bodyMemoryMaxDefault();
        private int bodyRateMin = BODY_RATE_MIN_DEFAULT;
        private Duration idleTimeout = IDLE_TIMEOUT_DEFAULT;
        private Duration headerReadTimeout = HEADER_READ_TIMEOUT_DEFAULT;
        private H1Limits h1Limits = H1Limits.defaults();
        private Duration shutdownGrace = SHUTDOWN_GRACE_DEFAULT;
        private ChannelOptions channelOptions = ChannelOptions.defaults();
        private ServerTls tls;

        private Builder() {
        }

        public Builder host(String value) {
            host = value;
            return this;
        }

        public Builder port(int value) {
            port = value;
            return this;
        }

        public Builder eventLoops(int value) {
            eventLoops = value;
            return this;
        }

        public Builder handlerThreads(int value) {
            handlerThreads = value;
            return this;
        }

        public Builder inFlightMax(int value) {
            inFlightMax = value;
            return this;
        }

        public Builder inFlightReserve(int value) {
            inFlightReserve = value;
            return this;
        }

        public Builder connectionsMax(int value) {
            connectionsMax = value;
            return this;
        }

        public Builder idleTimeout(Duration value) {
            idleTimeout = value;
            return this;
        }

        public Builder headerReadTimeout(Duration value) {
            headerReadTimeout = value;
            return this;
        }

        public Builder h1Limits(H1Limits value) {
            h1Limits = value;
            return this;
        }

        public Builder shutdownGrace(Duration value) {
            shutdownGrace = value;
            return this;
        }

        public Builder bodyMemoryMax(long value) {
            bodyMemoryMax = value;
            return this;
        }

        public Builder bodyRateMin(int value) {
            bodyRateMin = value;
            return this;
        }

        public Builder channelOptions(ChannelOptions value) {
            channelOptions = value;
            return this;
        }

        /** TLS on every connection; null (the default) for cleartext. */
        public Builder tls(ServerTls value) {
            tls = value;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(host, port, eventLoops, handlerThreads, inFlightMax, inFlightReserve, connectionsMax, idleTimeout,
                    headerReadTimeout, h1Limits, shutdownGrace, channelOptions, bodyMemoryMax, bodyRateMin, tls);
        }
    }
}
