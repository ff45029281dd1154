package io.ringkv.cluster.peer;

import io.ringkv.http.client.ClientStats;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * How a node's requests reach its peers: the one seam under the node-to-node contract
 * ({@code ReplicaClient}, {@code SignedCalls}, the metadata group's calls). Requests arrive signed
 * and leave as they are; answers come back unverified.
 *
 * <p>Two kinds: {@link H2PeerTransport}, HTTP/2 straight on http-core's engine and the node's own
 * event loops (the default), and {@link HttpClientTransport}, any {@code java.net.http.HttpClient}
 * (ringkv's or the JDK's), kept to compare against.
 *
 * <p>Failures complete the future exceptionally, never throw: no answer within the request's
 * timeout with {@link java.net.http.HttpTimeoutException}, a connection refused or lost with an
 * {@link java.io.IOException} ({@link java.net.ConnectException} when no connection could be made).
 * Futures may complete on an event loop: a continuation that blocks must move elsewhere.
 *
 * <p>Threading: implementations are thread-safe.
 */
public interface PeerTransport extends AutoCloseable {

    /** Sends {@code request} and reads the whole answer. */
    CompletableFuture<PeerAnswer> send(PeerRequest request);

    /** Sends {@code request}; completes once the answer's head arrived, its body to be read as it comes. */
    CompletableFuture<PeerStreamedAnswer> open(PeerRequest request);

    /** Connections open to each peer and requests in flight on them, read now; empty where not told. */
    Optional<ClientStats> stats();

    /** Closes every connection; requests in flight fail. */
    @Override
    void close();
}
