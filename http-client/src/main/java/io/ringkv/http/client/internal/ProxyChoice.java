package io.ringkv.http.client.internal;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.util.List;

/** The proxy a request goes through: the first HTTP proxy the {@link ProxySelector} offers. Pure. */
final class ProxyChoice {
    private ProxyChoice() {
    }

    /** @return the proxy's address, or {@code null} to go direct (no selector, DIRECT, or no HTTP proxy) */
    static InetSocketAddress of(ProxySelector proxies, URI target) {
        if (proxies == null) {
            return null;
        }
        List<Proxy> candidates = proxies.select(target);
        for (Proxy proxy : candidates) {
            SocketAddress address = proxy.address();
            if (proxy.type() == Proxy.Type.HTTP && address instanceof InetSocketAddress inet) {
                return inet;
            }
            if (proxy.type() == Proxy.Type.DIRECT) {
                return null;
            }
        }
        return null;
    }
}
