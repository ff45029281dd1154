package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import io.ringkv.http.h1.H1ResponseEvent;
import io.ringkv.http.h1.MalformedResponseException;
import io.ringkv.http.h1.RequestWriter;
import io.ringkv.http.h1.ResponseParser;
import io.ringkv.net.Connection;
import io.ringkv.net.ConnectionHandler;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The handler of a connection to an HTTP proxy that must first become a tunnel to the origin
 * (RFC 9110 §9.3.6): sends {@code CONNECT host:port}, reads the proxy's answer, and on a 2xx hands
 * the connection, and every later callback, to {@code next} (the TLS layer), which sees the
 * connection as if it had just opened. The CONNECT carries the route's {@code Proxy-Authorization}
 * value, if any. A 407 fails {@link #established()} with {@link ProxyAuthenticationRequired} (the
 * client returns it as a response, or answers it with the authenticator); any other status with
 * an {@link IOException} naming it. Either way the connection is closed, as the JDK does.
 *
 * <p>Threading: callbacks come from the connection's loop; {@code next} is written there once
 * and read there ({@code volatile} only so that toString may look).
 */
final class ProxyTunnel implements ConnectionHandler {
    private final Route route;
    private final ConnectionHandler next;
    private final ResponseParser parser = new ResponseParser(ResponseHeadLimits.HTTP1);
    private final CompletableFuture<Void> established = new CompletableFuture<>();
    private volatile boolean open;

    /** @param route the origin (host, port) to reach and the proxy to reach it through */
    ProxyTunnel(Route route, ConnectionHandler next) {
        this.route = route;
        this.next = next;
    }

    /** Completes once the proxy answered 2xx and {@code next} was opened on the connection. */
    CompletableFuture<Void> established() {
        return established;
    }

    @Override
    public void onOpen(Connection connection) {
        // RFC 9110 §9.3.6 and RFC 9112 §3.2.3: CONNECT takes the authority-form target; Host repeats it.
        String authority = authorityForm();
        Headers fields = new Headers(3);
        fields.add("Host", authority);
        fields.add("User-Agent", RequestHeadBuilder.USER_AGENT);
        if (route.tunnelAuthorization() != null) {
            fields.add("Proxy-Authorization", route.tunnelAuthorization()); // RFC 9110 §11.7.2
        }
        parser.begin("CONNECT");
        connection.write(RequestWriter.head("CONNECT", authority, fields));
    }

    @Override
    public void onRead(Connection connection, ByteBuffer input) {
        if (open) {
            next.onRead(connection, input);
            return;
        }
        try {
            H1ResponseEvent event;
            while (!open && (event = parser.next(input)) != null) {
                if (event instanceof io.ringkv.http.h1.ResponseHead head) {
                    onProxyAnswer(connection, head, input);
                }
            }
        } catch (MalformedResponseException e) {
            fail(connection, new IOException("malformed answer to CONNECT from proxy " + route.proxy(), e));
        }
    }

    private void onProxyAnswer(Connection connection, io.ringkv.http.h1.ResponseHead head, ByteBuffer input) {
        if (head.status() == 407) {
            fail(connection, new ProxyAuthenticationRequired(
                    new ResponseHead(head.status(), head.headers(), java.net.http.HttpClient.Version.HTTP_1_1),
                    "proxy " + route.proxy() + " requires authentication for CONNECT " + authorityForm()));
            input.position(input.limit());
            return;
        }
        if (head.status() / 100 != 2) {
            fail(connection, new IOException("proxy " + route.proxy() + " refused CONNECT " + authorityForm()
                    + ": " + head.status()));
            input.position(input.limit());
            return;
        }
        open = true;
        next.onOpen(connection);
        established.complete(null);
        if (input.hasRemaining()) {
            next.onRead(connection, input); // bytes the origin sent right behind the proxy's answer
        }
    }

    @Override
    public void onInputClosed(Connection connection) {
        if (open) {
            next.onInputClosed(connection);
        } else {
            fail(connection, new IOException("proxy " + route.proxy() + " closed the connection before answering CONNECT"));
        }
    }

    @Override
    public void onWritable(Connection connection) {
        if (open) {
            next.onWritable(connection);
        }
    }

    @Override
    public void onClosed(Connection connection, Throwable cause) {
        if (open) {
            next.onClosed(connection, cause);
        } else {
            established.completeExceptionally(cause != null ? cause
                    : new IOException("connection to proxy " + route.proxy() + " closed during CONNECT"));
        }
    }

    private void fail(Connection connection, IOException error) {
        established.completeExceptionally(error);
        connection.abort(error);
    }

    private String authorityForm() {
        String host = route.host().indexOf(':') >= 0 ? '[' + route.host() + ']' : route.host();
        return host + ':' + route.port();
    }

    @Override
    public String toString() {
        return "ProxyTunnel[" + authorityForm() + " via " + route.proxy() + (open ? " open" : "") + "]";
    }
}
