package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The proxy suite against ringkv's client. */
class RingProxyCompatibilityTest extends ProxyCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return RingHttpClient.newBuilder();
    }
}
