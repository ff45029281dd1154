package io.ringkv.http.client;

import java.net.http.HttpClient;

/**
 * The push suite against ringkv's client (h2c by prior knowledge), with the smallest windows so
 * that the larger pushed bodies need WINDOW_UPDATEs: pushed streams are flow-controlled like others.
 */
class RingPushCompatibilityTest extends PushCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return RingHttpClient.newBuilder().http2PriorKnowledge(true)
                .http2StreamWindowBytes(65_535).http2ConnectionWindowBytes(65_535);
    }

    @Override
    boolean callsPushHandlersOnTheExecutor() {
        return true;
    }
}
