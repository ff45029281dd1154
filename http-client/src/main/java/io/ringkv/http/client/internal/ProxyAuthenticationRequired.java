package io.ringkv.http.client.internal;

import java.io.IOException;

/**
 * A proxy answered CONNECT with 407 (RFC 9110 §15.5.8). Internal, never surfaced: the network link
 * turns it into a body-less 407 response ({@link ProxyRefusal}), which the authentication link
 * may answer, as the JDK does.
 */
final class ProxyAuthenticationRequired extends IOException {
    private final transient ResponseHead head;

    ProxyAuthenticationRequired(ResponseHead head, String message) {
        super(message);
        this.head = head;
    }

    /** The proxy's answer: status 407 and its fields (Proxy-Authenticate among them). */
    ResponseHead head() {
        return head;
    }
}
