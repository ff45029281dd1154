package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The proxy suite against the JDK's own client. */
class JdkProxyCompatibilityTest extends ProxyCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return HttpClient.newBuilder();
    }
}
