package io.ringkv.http.client.internal;

import java.io.IOException;

/**
 * Internal retry signal: an HTTP/2 connection attempt over TLS found that the server chose
 * HTTP/1.1 by ALPN. {@link NetworkLink} reruns the request, which then goes to HTTP/1.1; this
 * exception never reaches the application.
 */
final class Http1NegotiatedException extends IOException {
    Http1NegotiatedException(Route route) {
        super("server " + route.authority() + " did not select h2 by ALPN");
    }
}
