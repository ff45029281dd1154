package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The compatibility suite against the JDK's own client: the reference behaviour. */
class JdkClientCompatibilityTest extends HttpClientCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return HttpClient.newBuilder();
    }
}
