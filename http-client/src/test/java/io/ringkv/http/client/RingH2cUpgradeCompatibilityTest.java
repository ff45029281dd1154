package io.ringkv.http.client;

import java.net.http.HttpClient;

/**
 * The HTTP/2 suite against ringkv's client without prior knowledge: like the JDK's, it reaches
 * h2c by {@code Upgrade: h2c} on its first request (RFC 7540 §3.2).
 */
class RingH2cUpgradeCompatibilityTest extends Http2CompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return RingHttpClient.newBuilder();
    }

    @Override
    boolean queuesBeyondTheStreamLimit() {
        return true;
    }

    @Override
    boolean upgradesFromHttp1() {
        return true;
    }

    @Override
    boolean skipsLargeBodiesOverAnUpgrade() {
        return false;
    }
}
