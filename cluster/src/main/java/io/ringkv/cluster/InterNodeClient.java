package io.ringkv.cluster;

/** What carries node-to-node traffic. */
public enum InterNodeClient {
    /**
     * HTTP/2 straight on http-core's engine and the node's own event loops
     * ({@link io.ringkv.cluster.peer.H2PeerTransport}): the default.
     */
    DIRECT,
    /** ringkv's {@code java.net.http.HttpClient} (module http-client), for comparison. */
    RING,
    /** The JDK's built-in {@code HttpClient}, for comparison. */
    JDK
}
