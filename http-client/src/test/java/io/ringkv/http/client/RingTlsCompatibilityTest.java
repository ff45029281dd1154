package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The TLS suite against ringkv's client. */
class RingTlsCompatibilityTest extends TlsCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return RingHttpClient.newBuilder();
    }
}
