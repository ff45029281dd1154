package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The TLS suite against the JDK's own client. */
class JdkTlsCompatibilityTest extends TlsCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return HttpClient.newBuilder();
    }
}
