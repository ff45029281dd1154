package io.ringkv.http.client;

import java.net.http.HttpClient;

/**
 * The HTTP/2 suite against the JDK's client: it reaches h2c by {@code Upgrade: h2c} on its first
 * request to the origin (it cannot do prior knowledge); later requests share the upgraded connection.
 */
class JdkHttp2CompatibilityTest extends Http2CompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return HttpClient.newBuilder();
    }

    @Override
    boolean queuesBeyondTheStreamLimit() {
        return false;
    }

    @Override
    boolean upgradesFromHttp1() {
        return true;
    }
}
