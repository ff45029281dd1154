package io.ringkv.cluster.member;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterNodes;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.SignedCalls;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.CorruptMetadataException;
import io.ringkv.cluster.meta.MetadataCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Reads and changes the cluster metadata through whichever member of the metadata group answers,
 * over the internal plane ({@code /internal/v0/meta/...}, signed): how a node whose own server is
 * not in the Raft group yet (one that joined) follows and changes the metadata, and how membership steps
 * reach the group from any node. Members are tried in turn, this node first: one that cannot be
 * reached, runs no group ({@code 503}) or has no majority behind it is passed over.
 *
 * <p>A change the metadata refuses fails with {@link MembershipRefusedException} carrying the
 * reason; a malformed request with {@link IllegalArgumentException}; no member able to take it
 * with an {@link IOException} naming each one's answer.
 *
 * <p>Threading: thread-safe and stateless; futures complete on the calls' executor.
 */
public final class MembershipCalls {

    /** Per call to one member: a change waits for the Raft client's retries (about ten seconds). */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

    private final SignedCalls calls;
    private final ClusterNodes topology;

    public MembershipCalls(SignedCalls calls, ClusterNodes topology) {
        this.calls = calls;
        this.topology = topology;
    }

    /** The metadata as the leader has it. */
    public CompletableFuture<ClusterMetadata> read() {
        return firstAnswer("GET", InternalProtocol.META_READ_PATH, new byte[0]);
    }

    /** POSTs {@code body} to a metadata change endpoint; completes with the metadata after it. */
    public CompletableFuture<ClusterMetadata> change(String path, String body) {
        return firstAnswer("POST", path, body.getBytes(StandardCharsets.UTF_8));
    }

    /** The signed calls this uses, for callers that ask one node something else. */
    public SignedCalls calls() {
        return calls;
    }

    private CompletableFuture<ClusterMetadata> firstAnswer(String method, String path, byte[] body) {
        List<ClusterNode> order = new ArrayList<>();
        if (topology.all().contains(topology.self())) {
            order.add(topology.self());
        }
        order.addAll(topology.others());
        return attempt(order, 0, method, path, body, new StringBuilder());
    }

    private CompletableFuture<ClusterMetadata> attempt(List<ClusterNode> order, int next, String method, String path,
                                                       byte[] body, StringBuilder failures) {
        if (next == order.size()) {
            return CompletableFuture.failedFuture(new IOException("no member took " + method + " " + path + ":" + failures));
        }
        ClusterNode member = order.get(next);
        return calls.call(member.id(), method, path, body, CALL_TIMEOUT).handle((answer, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                failures.append(' ').append(member.id()).append(": ").append(cause.getMessage()).append(';');
                return attempt(order, next + 1, method, path, body, failures);
            }
            return switch (answer.status()) {
                case 200 -> {
                    try {
                        yield CompletableFuture.completedFuture(MetadataCodec.decodeMetadata(answer.body()));
                    } catch (CorruptMetadataException e) {
                        failures.append(' ').append(member.id()).append(": ").append(e.getMessage()).append(';');
                        yield attempt(order, next + 1, method, path, body, failures);
                    }
                }
                case 409 -> CompletableFuture.<ClusterMetadata>failedFuture(new MembershipRefusedException(answer.text()));
                case 400 -> CompletableFuture.<ClusterMetadata>failedFuture(new IllegalArgumentException(answer.text()));
                default -> {
                    failures.append(' ').append(member.id()).append(": ").append(answer.status()).append(' ')
                            .append(answer.text()).append(';');
                    yield attempt(order, next + 1, method, path, body, failures);
                }
            };
        }).thenCompose(result -> result);
    }
}
