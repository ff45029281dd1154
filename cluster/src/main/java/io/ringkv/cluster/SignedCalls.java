package io.ringkv.cluster;

import io.ringkv.cluster.peer.HttpClientTransport;
import io.ringkv.cluster.peer.PeerRequest;
import io.ringkv.cluster.peer.PeerTransport;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * One-off signed calls on the internal plane that are not replica traffic: membership steps and
 * metadata reads. Each request carries the proof of the cluster secret ({@link InternalAuth}) and
 * the sender's metadata epoch; an answer counts only with its own proof ({@link AnswerAuth}), so a
 * stranger on the path can neither forge a step nor feed a node false metadata.
 *
 * <p>Threading: immutable and thread-safe; futures complete on {@code executor}, never on the
 * transport's network thread.
 */
public final class SignedCalls {

    /** The longest refusal text kept in an exception or an answer. */
    private static final int REASON_CHARS_MAX = 400;

    private final PeerTransport peers;
    private final InternalAuth auth;
    private final java.util.function.LongSupplier epoch;
    private final Executor executor;

    /**
     * An answer that proved it came from the node asked: its status, body, and the metadata epoch
     * the node named (-1 when it named none: metadata endpoints do not).
     */
    public record Answer(int status, byte[] body, long epoch) {
        /** The body as text, cut to a length fit for a message. */
        public String text() {
            String text = new String(body, StandardCharsets.UTF_8);
            return text.length() <= REASON_CHARS_MAX ? text : text.substring(0, REASON_CHARS_MAX) + "...";
        }
    }

    /**
     * @param epoch    this node's metadata epoch, sent with each call
     * @param executor completes the calls' futures
     */
    public SignedCalls(PeerTransport peers, InternalAuth auth, java.util.function.LongSupplier epoch, Executor executor) {
        this.peers = peers;
        this.auth = auth;
        this.epoch = epoch;
        this.executor = executor;
    }

    /** Over {@code http}, for a process that is not a node (a command, a node asking to join). */
    public SignedCalls(HttpClient http, InternalAuth auth, java.util.function.LongSupplier epoch, Executor executor) {
        this(new HttpClientTransport(http), auth, epoch, executor);
    }

    /**
     * Sends {@code method path} with {@code body} (empty for none) to the node at {@code nodeUrl}.
     *
     * @return the proven answer, whatever its status; fails with an {@link IOException} when the
     *         node cannot be reached within {@code timeout} or its answer carries no valid proof
     */
    public CompletableFuture<Answer> call(String nodeUrl, String method, String path, byte[] body, Duration timeout) {
        PeerRequest request;
        try {
            Map<String, String> signed = auth.sign(nodeUrl, method, path,
                    Map.of(InternalProtocol.EPOCH_HEADER, Long.toString(epoch.getAsLong())), body);
            request = new PeerRequest(nodeUrl, method, path, signed, body, timeout);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new IOException("cannot call " + nodeUrl + path + ": " + e.getMessage(), e));
        }
        String proof = InternalAuth.proofOf(request.fields());
        return peers.send(request).handleAsync((response, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                throw new CompletionException(cause instanceof IOException ? cause
                        : new IOException(method + " " + path + " to " + nodeUrl + " failed: " + cause, cause));
            }
            if (!auth.answers().verifies(proof, response.status(), response.fields(), response.body())) {
                String text = new String(response.body(), StandardCharsets.UTF_8);
                // Answers the server gives before any handler (503 while it sheds load, 4xx at the
                // head) carry no proof; neither does a node with another secret. Neither is trusted.
                String why = response.status() == 503 ? " (not taken: the node sheds load or is starting)"
                        : " without a valid proof of the cluster secret (another secret, or refused before any handler)";
                throw new CompletionException(new IOException(nodeUrl + " answered " + response.status() + " to " + path
                        + why + ": " + text.substring(0, Math.min(text.length(), REASON_CHARS_MAX))));
            }
            long theirs = -1;
            try {
                theirs = Long.parseLong(response.fields().first(InternalProtocol.EPOCH_HEADER).orElse("-1"));
            } catch (NumberFormatException e) {
                // proven, yet malformed: treated as naming none
            }
            return new Answer(response.status(), response.body(), theirs);
        }, executor);
    }
}
