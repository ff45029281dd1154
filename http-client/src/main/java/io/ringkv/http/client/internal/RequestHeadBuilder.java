package io.ringkv.http.client.internal;

import io.ringkv.http.Headers;
import java.net.URI;

/**
 * The HTTP/1.1 request line target and header section for an {@link ExchangeRequest}: the fields
 * the codec manages (Host, framing, Expect, User-Agent) plus the request's own. Pure.
 */
final class RequestHeadBuilder {
    static final String USER_AGENT = "ringkv-http-client";

    private RequestHeadBuilder() {
    }

    /**
     * RFC 9112 §3.2.1: origin-form ("/path?query") to an origin; §3.2.2: absolute-form when a
     * cleartext request goes through a proxy.
     */
    static String target(ExchangeRequest request, Route route) {
        URI uri = request.uri();
        if (route.proxy() != null && !route.secure()) {
            return uri.toASCIIString();
        }
        String path = uri.getRawPath();
        String query = uri.getRawQuery();
        String origin = path == null || path.isEmpty() ? "/" : path;
        return query == null ? origin : origin + '?' + query;
    }

    static Headers fields(ExchangeRequest request, Route route) {
        return fields(request, route, new Headers(request.fields().size() + 4));
    }

    /** Like {@link #fields(ExchangeRequest, Route)}, into {@code fields} (cleared first), which it returns. */
    static Headers fields(ExchangeRequest request, Route route, Headers fields) {
        Headers own = request.fields();
        fields.clear();
        // A field the application set itself replaces the one the client would add, as in the JDK's
        // client. The JDK's request builder accepts Host, Content-Length, Expect and the like only
        // where jdk.httpclient.allowRestrictedHeaders names them; sending both would make a second
        // Host, which a server must answer with 400 (RFC 9112 §3.2).
        if (!own.contains("Host")) {
            // RFC 9112 §3.2: Host on every HTTP/1.1 request, first by convention.
            fields.add("Host", route.authority());
        }
        long length = request.contentLength();
        if (request.body() != null) {
            if (length < 0) {
                if (!own.contains("Transfer-Encoding")) {
                    fields.add("Transfer-Encoding", "chunked"); // RFC 9112 §7.1
                }
            } else if (!own.contains("Content-Length")) {
                fields.add("Content-Length", Long.toString(length)); // RFC 9112 §6.2
            }
            if (request.expectContinue() && !own.contains("Expect")) {
                fields.add("Expect", "100-continue"); // RFC 9110 §10.1.1
            }
        }
        if (!request.fields().contains("User-Agent")) {
            fields.add("User-Agent", USER_AGENT);
        }
        boolean toProxy = route.forwardedByProxy();
        for (int i = 0; i < request.fields().size(); i++) {
            String name = request.fields().name(i);
            if (toProxy ? allowedToProxy(name, request.fields().value(i)) : !isProxyField(name)) {
                fields.add(name, request.fields().value(i));
            }
        }
        return fields;
    }

    /**
     * Proxy-* fields (Proxy-Authorization above all) are for a proxy that forwards the request;
     * like the JDK, they never go to an origin, directly or through a tunnel (the CONNECT carries
     * Proxy-Authorization instead, see {@link ProxyTunnel}).
     */
    static boolean isProxyField(String name) {
        return name.length() > 6 && name.regionMatches(true, 0, "proxy-", 0, 6);
    }

    /** A Proxy-Authorization of a scheme disabled for forwarding proxies is dropped, as the JDK does. */
    private static boolean allowedToProxy(String name, String value) {
        return !name.equalsIgnoreCase("Proxy-Authorization")
                || ProxyAuthPolicy.SYSTEM.proxyAllows(ProxyAuthPolicy.schemeOf(value));
    }
}
