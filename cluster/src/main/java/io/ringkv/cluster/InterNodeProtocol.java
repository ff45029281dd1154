package io.ringkv.cluster;

/** Which HTTP version carries node-to-node traffic. */
public enum InterNodeProtocol {
    /**
     * HTTP/1.1: one request at a time per connection, a pool of connections per peer. Kept for
     * comparison and for the JDK's client, which cannot start cleartext HTTP/2 by prior knowledge.
     */
    H1,
    /**
     * Cleartext HTTP/2 by prior knowledge (RFC 9113 §3.3): a few connections per peer, many
     * concurrent streams on each. The default; needs ringkv's own client.
     */
    H2
}
