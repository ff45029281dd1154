package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The cross-protocol suite against the JDK's client (h2c by {@code Upgrade: h2c}). */
class JdkCrossProtocolCompatibilityTest extends CrossProtocolCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder(Protocol protocol) {
        return HttpClient.newBuilder();
    }

    @Override
    boolean queuesBeyondTheStreamLimit() {
        return false;
    }
}
