package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The compatibility suite against ringkv's client. */
class RingClientCompatibilityTest extends HttpClientCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return RingHttpClient.newBuilder();
    }
}
