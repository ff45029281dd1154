/**
 * ringkv's network layer: selector event loops, connections with a lock-free outbound queue,
 * timers, the acceptor and non-blocking connect, and TLS over {@code SSLEngine}. Knows nothing of
 * HTTP.
 */
module io.ringkv.net {
    requires org.slf4j;

    exports io.ringkv.net;
    exports io.ringkv.net.tls;
}
