package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The HTTP/2 suite against ringkv's client, by prior knowledge (RFC 9113 §3.3). */
class RingHttp2CompatibilityTest extends Http2CompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return RingHttpClient.newBuilder().http2PriorKnowledge(true);
    }

    @Override
    boolean queuesBeyondTheStreamLimit() {
        return true;
    }

    @Override
    boolean upgradesFromHttp1() {
        return false;
    }
}
