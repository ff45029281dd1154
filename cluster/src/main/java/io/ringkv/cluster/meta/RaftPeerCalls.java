package io.ringkv.cluster.meta;

import io.ringkv.cluster.InternalAuth;
import io.ringkv.http.client.RingBodyPublishers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * <p>Threading: immutable and thread-safe. Futures complete on {@code executor}, not on the HTTP
 * client's network thread, which ringkv's client completes on: what Ratis chains on an answer must
 * never hold up the replicas' traffic on the same connection.
 */
public final class RaftPeerCalls {

    /** The longest refusal text kept in an exception. */
    private static final int REASON_CHARS_MAX = 300;

    private final HttpClient http;
    private final InternalAuth auth;
    private final Duration timeout;
    private final Executor executor;

    /**
     * @param http     the node's inter-node client
     * @param auth     signs every call with the cluster secret
     * @param timeout  per call, until the answer's head arrives
     * @param executor completes the calls' futures
     */
    public RaftPeerCalls(HttpClient http, InternalAuth auth, Duration timeout, Executor executor) {
        this.http = http;
        this.auth = auth;
        this.timeout = timeout;
        this.executor = executor;
    }

    /**
     * @param peerUrl the peer's base URL (its Raft address)
     * @return the answer's body; fails with an {@link IOException} for a refusal or a transport failure
     */
    CompletableFuture<byte[]> call(String peerUrl, RaftOp op, byte[] body) {
        HttpRequest request;
        Map<String, String> signed;
        try {
            HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(peerUrl + op.path())).timeout(timeout)
                    .POST(RingBodyPublishers.ofByteArrayNoCopy(body));
            signed = auth.sign(peerUrl, "POST", op.path(), Map.of(), body);
            signed.forEach(builder::header);
            request = builder.build();
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new IOException("cannot call " + peerUrl + ": " + e.getMessage(), e));
        }
        String proof = InternalAuth.proofOf(signed);
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).handleAsync((response, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                throw new CompletionException(cause instanceof IOException ? cause
                        : new IOException(op.path() + " to " + peerUrl + " failed: " + cause, cause));
            }
            if (response.statusCode() != 200) {
                String reason = new String(response.body(), StandardCharsets.UTF_8);
                throw new CompletionException(new IOException(peerUrl + " answered " + response.statusCode() + " to "
                        + op.path() + ": " + reason.substring(0, Math.min(reason.length(), REASON_CHARS_MAX))));
            }
            // A reply is used (a vote, an append's outcome) only when the peer proved it made it for this call.
            if (!auth.answers().verifies(proof, response.statusCode(), response.headers(), response.body())) {
                throw new CompletionException(new IOException("the answer of " + peerUrl + " to " + op.path()
                        + " carries no valid proof of the cluster secret"));
            }
            return response.body();
        }, executor);
    }
}
