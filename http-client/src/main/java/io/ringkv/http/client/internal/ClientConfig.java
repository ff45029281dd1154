package io.ringkv.http.client.internal;

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
 * Everything a client was built with; immutable. Optional JDK settings are nullable fields exposed
 * as {@link Optional}s by {@link RingClient}, as the JDK client exposes them.
 */
public record ClientConfig(
        CookieHandler cookieHandler,
        Duration connectTimeout,
        SSLContext sslContext,
        SSLParameters sslParameters,
        Executor executor,
        HttpClient.Redirect redirect,
        HttpClient.Version version,
        int priority,
        ProxySelector proxySelector,
        Authenticator authenticator,
        InetAddress localAddress,
        Extensions extensions) {

    /** ringkv's own options, grouped so the record stays readable. */
    public record Extensions(
            boolean http2PriorKnowledge,
            int connectionsPerHost,
            int http2StreamWindowBytes,
            int http2ConnectionWindowBytes,
            Duration idleTimeout,
            Duration http2PingInterval,
            Duration http2PingTimeout,
            boolean http2ServerPush,
            Duration syncSendSpin,
            java.util.concurrent.Executor resolverExecutor) {
    }
}
