package io.ringkv.node;

import io.ringkv.http.client.RingHttpClient;
import java.net.http.HttpClient;

/** The client a protocol-parameterised node test talks through: ours for h2c (prior knowledge), the JDK's for HTTP/1.1. */
final class TestClients {
    private TestClients() {
    }

    /** @param protocol {@code "H2C"} or {@code "HTTP_1_1"} */
    static HttpClient forProtocol(String protocol) {
        return protocol.equals("H2C")
                ? RingHttpClient.newBuilder().http2PriorKnowledge(true).version(HttpClient.Version.HTTP_2).build()
                : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }
}
