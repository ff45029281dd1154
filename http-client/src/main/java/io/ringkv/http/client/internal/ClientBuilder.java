package io.ringkv.http.client.internal;

import io.ringkv.http.client.RingHttpClient;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The builder behind {@link RingHttpClient#newBuilder()}. Argument checks follow the JDK builder's
 * (null rejected, non-positive durations rejected, priority 1..256, HTTP/2 windows 1..2^31-1).
 *
 * <p>Threading: not thread-safe, like the JDK builder. {@link #build()} snapshots the settings.
 */
public final class ClientBuilder implements RingHttpClient.Builder {
    /** RFC 9113 §6.9.1: a flow-control window never exceeds 2^31-1 octets. */
    private static final int WINDOW_BYTES_MAX = Integer.MAX_VALUE;
    /** RFC 9113 §6.5.2: the initial window must be at least the default 65,535. */
    private static final int WINDOW_BYTES_MIN = 65_535;

    private CookieHandler cookieHandler;
    private Duration connectTimeout;
    private SSLContext sslContext;
    private SSLParameters sslParameters;
    private Executor executor;
    private HttpClient.Redirect redirect = HttpClient.Redirect.NEVER;
    private HttpClient.Version version = HttpClient.Version.HTTP_2;
    private int priority = -1;
    private ProxySelector proxySelector;
    private Authenticator authenticator;
    private InetAddress localAddress;
    /** A spin longer than this is a mistake: it would burn a CPU per send. */
    private static final Duration SYNC_SEND_SPIN_MAX = Duration.ofMillis(1);

    private boolean http2PriorKnowledge;
    private int connectionsPerHost = CONNECTIONS_PER_HOST_DEFAULT;
    private int http2StreamWindowBytes = HTTP2_STREAM_WINDOW_BYTES_DEFAULT;
    private int http2ConnectionWindowBytes = HTTP2_CONNECTION_WINDOW_BYTES_DEFAULT;
    private Duration idleTimeout = IDLE_TIMEOUT_DEFAULT;
    private Duration http2PingInterval = HTTP2_PING_INTERVAL_DEFAULT;
    private Duration http2PingTimeout = HTTP2_PING_TIMEOUT_DEFAULT;
    private boolean http2ServerPush = true;
    private Duration syncSendSpin = SYNC_SEND_SPIN_DEFAULT;
    private Executor resolverExecutor;

    @Override
    public ClientBuilder cookieHandler(CookieHandler cookieHandler) {
        this.cookieHandler = Objects.requireNonNull(cookieHandler, "cookieHandler");
        return this;
    }

    @Override
    public ClientBuilder connectTimeout(Duration duration) {
        this.connectTimeout = positive(duration, "connectTimeout");
        return this;
    }

    @Override
    public ClientBuilder sslContext(SSLContext sslContext) {
        this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
        return this;
    }

    @Override
    public ClientBuilder sslParameters(SSLParameters sslParameters) {
        Objects.requireNonNull(sslParameters, "sslParameters");
        this.sslParameters = copy(sslParameters);
        return this;
    }

    @Override
    public ClientBuilder executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    @Override
    public ClientBuilder followRedirects(HttpClient.Redirect policy) {
        this.redirect = Objects.requireNonNull(policy, "policy");
        return this;
    }

    @Override
    public ClientBuilder version(HttpClient.Version version) {
        this.version = Objects.requireNonNull(version, "version");
        return this;
    }

    @Override
    public ClientBuilder priority(int priority) {
        // RFC 9113 §5.3 weights as the JDK documents them.
        if (priority < 1 || priority > 256) {
            throw new IllegalArgumentException("priority must be between 1 and 256, was " + priority);
        }
        this.priority = priority;
        return this;
    }

    @Override
    public ClientBuilder proxy(ProxySelector proxySelector) {
        this.proxySelector = Objects.requireNonNull(proxySelector, "proxySelector");
        return this;
    }

    @Override
    public ClientBuilder authenticator(Authenticator authenticator) {
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
        return this;
    }

    @Override
    public ClientBuilder localAddress(InetAddress localAddress) {
        this.localAddress = localAddress;
        return this;
    }

    @Override
    public ClientBuilder http2PriorKnowledge(boolean enabled) {
        this.http2PriorKnowledge = enabled;
        return this;
    }

    @Override
    public ClientBuilder connectionsPerHost(int connections) {
        if (connections < 1) {
            throw new IllegalArgumentException("connectionsPerHost must be at least 1, was " + connections);
        }
        this.connectionsPerHost = connections;
        return this;
    }

    @Override
    public ClientBuilder http2StreamWindowBytes(int bytes) {
        this.http2StreamWindowBytes = window(bytes, "http2StreamWindowBytes");
        return this;
    }

    @Override
    public ClientBuilder http2ConnectionWindowBytes(int bytes) {
        this.http2ConnectionWindowBytes = window(bytes, "http2ConnectionWindowBytes");
        return this;
    }

    @Override
    public ClientBuilder idleTimeout(Duration timeout) {
        this.idleTimeout = positive(timeout, "idleTimeout");
        return this;
    }

    @Override
    public ClientBuilder http2PingInterval(Duration interval) {
        Objects.requireNonNull(interval, "http2PingInterval");
        this.http2PingInterval = interval.isZero() ? interval : positive(interval, "http2PingInterval");
        return this;
    }

    @Override
    public ClientBuilder resolverExecutor(Executor executor) {
        this.resolverExecutor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    @Override
    public ClientBuilder http2PingTimeout(Duration timeout) {
        this.http2PingTimeout = positive(timeout, "http2PingTimeout");
        return this;
    }

    @Override
    public ClientBuilder http2ServerPush(boolean enabled) {
        this.http2ServerPush = enabled;
        return this;
    }

    @Override
    public ClientBuilder syncSendSpin(Duration spin) {
        Objects.requireNonNull(spin, "syncSendSpin");
        if (spin.isNegative() || spin.compareTo(SYNC_SEND_SPIN_MAX) > 0) {
            throw new IllegalArgumentException("syncSendSpin must be between 0 and " + SYNC_SEND_SPIN_MAX
                    + ", was " + spin);
        }
        this.syncSendSpin = spin;
        return this;
    }

    @Override
    public HttpClient build() {
        return new RingClient(config());
    }

    ClientConfig config() {
        ClientConfig.Extensions extensions = new ClientConfig.Extensions(http2PriorKnowledge,
                connectionsPerHost, http2StreamWindowBytes, http2ConnectionWindowBytes, idleTimeout,
                http2PingInterval, http2PingTimeout, http2ServerPush, syncSendSpin, resolverExecutor);
        return new ClientConfig(cookieHandler, connectTimeout, sslContextOrDefault(),
                sslParameters == null ? null : copy(sslParameters), executor, redirect, version,
                priority, proxySelector, authenticator, localAddress, extensions);
    }

    /** The JDK client reports {@code SSLContext.getDefault()} when none was set; so do we. */
    private SSLContext sslContextOrDefault() {
        if (sslContext != null) {
            return sslContext;
        }
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new java.io.UncheckedIOException(new java.io.IOException("no default SSLContext", e));
        }
    }

    private static Duration positive(Duration duration, String what) {
        Objects.requireNonNull(duration, what);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, was " + duration);
        }
        return duration;
    }

    private static int window(int bytes, String what) {
        if (bytes < WINDOW_BYTES_MIN || bytes > WINDOW_BYTES_MAX) {
            throw new IllegalArgumentException(what + " must be in [" + WINDOW_BYTES_MIN + ", "
                    + WINDOW_BYTES_MAX + "], was " + bytes);
        }
        return bytes;
    }

    private static SSLParameters copy(SSLParameters from) {
        SSLParameters to = new SSLParameters(from.getCipherSuites(), from.getProtocols());
        to.setApplicationProtocols(from.getApplicationProtocols());
        to.setEndpointIdentificationAlgorithm(from.getEndpointIdentificationAlgorithm());
        to.setNeedClientAuth(from.getNeedClientAuth());
        to.setWantClientAuth(from.getWantClientAuth());
        to.setServerNames(from.getServerNames());
        to.setSNIMatchers(from.getSNIMatchers());
        to.setUseCipherSuitesOrder(from.getUseCipherSuitesOrder());
        to.setAlgorithmConstraints(from.getAlgorithmConstraints());
        to.setMaximumPacketSize(from.getMaximumPacketSize());
        return to;
    }
}
