package io.ringkv.cluster;

/** Which {@code java.net.http.HttpClient} implementation carries node-to-node traffic. */
public enum InterNodeClient {
    /** ringkv's own client (module http-client): the default. */
    RING,
    /** The JDK's built-in client, for comparison. */
    JDK
}
