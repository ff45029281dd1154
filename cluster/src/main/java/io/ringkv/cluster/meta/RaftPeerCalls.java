package io.ringkv.cluster.meta;

import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.peer.PeerRequest;
import io.ringkv.cluster.peer.PeerTransport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Sends one Raft call to a peer over the internal plane: a signed {@code POST} of the protobuf
 * bytes ({@link InternalAuth}, the same proof of the cluster secret, naming the peer as receiver,
 * as every internal request), completed with the answer's bytes once the answer's own proof
 * ({@link io.ringkv.cluster.AnswerAuth}) shows the peer made it for this call. Anything but a
 * {@code 200}, or an answer without that proof, fails the call with an {@link IOException}, which
 * Ratis handles as it would a broken connection.
 *
 * <p>Threading: immutable and thread-safe. Futures complete on {@code executor}, not on the
 * transport's network thread (an event loop that also serves clients and replicas): what Ratis
 * chains on an answer must never hold up that traffic.
 */
public final class RaftPeerCalls {

    /** The longest refusal text kept in an exception. */
    private static final int REASON_CHARS_MAX = 300;

    private final PeerTransport peers;
    private final InternalAuth auth;
    private final Duration timeout;
    private final Executor executor;

    /**
     * @param peers    the node's transport to its peers
     * @param auth     signs every call with the cluster secret
     * @param timeout  per call, until the answer's head arrives
     * @param executor completes the calls' futures
     */
    public RaftPeerCalls(PeerTransport peers, InternalAuth auth, Duration timeout, Executor executor) {
        this.peers = peers;
        this.auth = auth;
        this.timeout = timeout;
        this.executor = executor;
    }

    /**
     * @param peerUrl the peer's base URL (its Raft address)
     * @return the answer's body; fails with an {@link IOException} for a refusal or a transport failure
     */
    CompletableFuture<byte[]> call(String peerUrl, RaftOp op, byte[] body) {
        PeerRequest request;
        try {
            Map<String, String> signed = auth.sign(peerUrl, "POST", op.path(), Map.of(), body);
            request = new PeerRequest(peerUrl, "POST", op.path(), signed, body, timeout);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new IOException("cannot call " + peerUrl + ": " + e.getMessage(), e));
        }
        String proof = InternalAuth.proofOf(request.fields());
        return peers.send(request).handleAsync((response, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                throw new CompletionException(cause instanceof IOException ? cause
                        : new IOException(op.path() + " to " + peerUrl + " failed: " + cause, cause));
            }
            if (response.status() != 200) {
                String reason = new String(response.body(), StandardCharsets.UTF_8);
                throw new CompletionException(new IOException(peerUrl + " answered " + response.status() + " to "
                        + op.path() + ": " + reason.substring(0, Math.min(reason.length(), REASON_CHARS_MAX))));
            }
            // A reply is used (a vote, an append's outcome) only when the peer proved it made it for this call.
            if (!auth.answers().verifies(proof, response.status(), response.fields(), response.body())) {
                throw new CompletionException(new IOException("the answer of " + peerUrl + " to " + op.path()
                        + " carries no valid proof of the cluster secret"));
            }
            return response.body();
        }, executor);
    }
}
