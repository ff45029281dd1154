package io.ringkv.cluster;

import javax.net.ssl.SSLContext;

/**
 * How a node talks to its peers: which client, which protocol, how many connections it may
 * open to each peer, and which certificates it trusts when the peers' URLs are https.
 *
 * @param client             the {@code java.net.http.HttpClient} implementation
 * @param protocol           HTTP/1.1 or h2c by prior knowledge
 * @param connectionsPerPeer most connections open to one peer at once. Over HTTP/2 a second
 *                           connection is opened only while every stream slot of the first is
 *                           taken; over HTTP/1.1 each connection carries one request at a time,
 *                           so this bounds the requests in flight to a peer. The JDK's client
 *                           has no such setting and ignores it.
 * @param trust              verifies the peers' certificates in a cluster of https URLs (peer
 *                           host names are checked against them too); null: the JDK's default
 *                           trust store. Unused over http. Over https the protocol is chosen by
 *                           ALPN, {@link InterNodeProtocol#H2} offering h2
 * @param batchesPerPeer     batches of replica reads, and of replica writes, to one peer unanswered
 *                           at once; further ones wait for an answer and leave together in one
 *                           request ({@link PeerBatcher}). 0 sends every read and write as a
 *                           request of its own
 * @param peerBodyBytesMax   the largest request body a peer takes: its {@code --max-body}, which
 *                           every node of a cluster should share. Batch requests stay within it
 *                           ({@link ReplicaClient#batchBodyBytesMax})
 */
public record InterNodeTransport(InterNodeClient client, InterNodeProtocol protocol, int connectionsPerPeer,
                                 SSLContext trust, int batchesPerPeer, long peerBodyBytesMax) {

    /**
     * Unless told otherwise: one batch of reads and one of writes in flight per peer (measured
     * against two and against none in docs/benchmarks.md, "The replicated path").
     */
    public static final int BATCHES_PER_PEER_DEFAULT = 1;

    /** The peers' body limit unless told otherwise: the default {@code --max-body}, 16 MiB. */
    public static final long PEER_BODY_BYTES_DEFAULT = 16L << 20;

    /** Connections per peer over HTTP/2 unless told otherwise: one carries many streams. */
    public static final int H2_CONNECTIONS_PER_PEER_DEFAULT = 1;
    /** Connections per peer over HTTP/1.1 unless told otherwise: one per request in flight. */
    public static final int H1_CONNECTIONS_PER_PEER_DEFAULT = 64;

    /** With the JDK's default trust store for https peers. */
    public InterNodeTransport(InterNodeClient client, InterNodeProtocol protocol, int connectionsPerPeer) {
        this(client, protocol, connectionsPerPeer, null, BATCHES_PER_PEER_DEFAULT, PEER_BODY_BYTES_DEFAULT);
    }

    public InterNodeTransport {
        if (connectionsPerPeer < 1) {
            throw new IllegalArgumentException("connections per peer must be at least 1, got " + connectionsPerPeer);
        }
        if (peerBodyBytesMax < 0) {
            throw new IllegalArgumentException("the peers' body limit must not be negative, got " + peerBodyBytesMax);
        }
        if (batchesPerPeer < 0) {
            throw new IllegalArgumentException("batches per peer must not be negative, got " + batchesPerPeer);
        }
        if (client == InterNodeClient.DIRECT && protocol == InterNodeProtocol.H1) {
            throw new IllegalArgumentException("the direct transport speaks HTTP/2 only; for HTTP/1.1 between the nodes "
                    + "use the RING or the JDK client");
        }
        if (client == InterNodeClient.JDK && protocol == InterNodeProtocol.H2) {
            throw new IllegalArgumentException("the JDK's client cannot speak cleartext HTTP/2 by prior knowledge; "
                    + "use the H1 protocol with it");
        }
    }

    /** The same, trusting {@code context} for https peers. */
    public InterNodeTransport withTrust(SSLContext context) {
        return new InterNodeTransport(client, protocol, connectionsPerPeer, context, batchesPerPeer, peerBodyBytesMax);
    }

    /** The same, with {@code batches} batches of reads and of writes in flight per peer (0: no batching). */
    public InterNodeTransport withBatchesPerPeer(int batches) {
        return new InterNodeTransport(client, protocol, connectionsPerPeer, trust, batches, peerBodyBytesMax);
    }

    /** The same, for peers that take request bodies of up to {@code bytes} (their {@code --max-body}). */
    public InterNodeTransport withPeerBodyBytesMax(long bytes) {
        return new InterNodeTransport(client, protocol, connectionsPerPeer, trust, batchesPerPeer, bytes);
    }

    /** The direct transport over h2c (h2 to https peers), one connection per peer and event loop. */
    public static InterNodeTransport defaults() {
        return of(InterNodeClient.DIRECT, InterNodeProtocol.H2);
    }

    /** {@code client} over {@code protocol} with that protocol's default connections per peer. */
    public static InterNodeTransport of(InterNodeClient client, InterNodeProtocol protocol) {
        return new InterNodeTransport(client, protocol, protocol == InterNodeProtocol.H2
                ? H2_CONNECTIONS_PER_PEER_DEFAULT : H1_CONNECTIONS_PER_PEER_DEFAULT);
    }
}
