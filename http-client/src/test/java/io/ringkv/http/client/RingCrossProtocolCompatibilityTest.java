package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The cross-protocol suite against ringkv's client (h2c by prior knowledge, RFC 9113 §3.3). */
class RingCrossProtocolCompatibilityTest extends CrossProtocolCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder(Protocol protocol) {
        RingHttpClient.Builder builder = RingHttpClient.newBuilder();
        return protocol == Protocol.H2C ? builder.http2PriorKnowledge(true) : builder;
    }

    @Override
    boolean queuesBeyondTheStreamLimit() {
        return true;
    }
}
