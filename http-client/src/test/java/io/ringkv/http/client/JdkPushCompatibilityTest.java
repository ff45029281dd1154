package io.ringkv.http.client;

import java.net.http.HttpClient;

/** The push suite against the JDK's client (h2c by {@code Upgrade} on the first request). */
class JdkPushCompatibilityTest extends PushCompatibilitySuite {
    @Override
    HttpClient.Builder newBuilder() {
        return HttpClient.newBuilder();
    }

    @Override
    boolean callsPushHandlersOnTheExecutor() {
        return false;
    }
}
