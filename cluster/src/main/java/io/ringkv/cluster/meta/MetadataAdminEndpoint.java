package io.ringkv.cluster.meta;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Metadata changes and reads through a node of the metadata group, on the internal plane so that
 * they need the cluster secret:
 * <pre>
 *   POST /internal/v0/meta/replication-factor  body N                -> 200 {"epoch":E,"replicationFactor":N}
 *   POST /internal/v0/meta/join                body URL (the sender) -> 200 the metadata after, encoded
 *   POST /internal/v0/meta/member-state        body "ID STATE [FROM]" -> 200 the metadata after, encoded; with FROM only
 *                                                                     if the member is in that state (else 409)
 *   POST /internal/v0/meta/replace             body "DEAD_ID URL"    -> 200 the metadata after, encoded
 *   GET  /internal/v0/meta/metadata                                  -> 200 the metadata now, encoded
 * </pre>
 * Encoded metadata is {@link MetadataCodec#encode(ClusterMetadata)}'s form, read linearizably
 * through the leader. A change the metadata refuses is {@code 409} with its reason; a malformed
 * body {@code 400}; no majority of voters within the client's retries {@code 503} (a change may
 * still apply later, and asking again is safe: a join or a replace by a node that is already
 * joining answers the metadata as it is).
 *
 * <p>A join must name the node that signed the request: a node can ask only for itself.
 *
 * <p>Threading: handler threads; the answer completes when the Raft client's future does.
 */
public final class MetadataAdminEndpoint implements HttpHandler {

    private final MetadataGroup group;
    private final ClusterNode self;

    /** @param self this node: a joining node must speak its scheme (http or https) */
    public MetadataAdminEndpoint(MetadataGroup group, ClusterNode self) {
        this.group = group;
        this.self = self;
    }

    @Override
    public CompletionStage<Response> handle(Request request) {
        String path = request.path();
        boolean read = path.equals(InternalProtocol.META_READ_PATH);
        if (!read && !path.equals(InternalProtocol.META_REPLICATION_FACTOR_PATH) && !path.equals(InternalProtocol.META_JOIN_PATH)
                && !path.equals(InternalProtocol.META_MEMBER_STATE_PATH) && !path.equals(InternalProtocol.META_REPLACE_PATH)) {
            return done(Response.text(404, "no metadata request " + path));
        }
        String method = read ? "GET" : "POST";
        if (!request.method().equals(method)) {
            return done(Response.text(405, "use " + method).withHeader("Allow", method));
        }
        String body = new String(request.body(), StandardCharsets.UTF_8).strip();
        return switch (path) {
            case InternalProtocol.META_READ_PATH -> group.readLinearizable()
                    .handle((metadata, failure) -> failure != null ? noMajority(failure) : encoded(metadata));
            case InternalProtocol.META_REPLICATION_FACTOR_PATH -> replicationFactor(body);
            case InternalProtocol.META_JOIN_PATH -> join(body, request.headers().first(InternalAuth.NODE_HEADER).orElse(""));
            case InternalProtocol.META_MEMBER_STATE_PATH -> memberState(body);
            default -> replace(body, request.headers().first(InternalAuth.NODE_HEADER).orElse(""));
        };
    }

    private CompletionStage<Response> replicationFactor(String body) {
        int factor;
        try {
            factor = Integer.parseInt(body);
        } catch (NumberFormatException e) {
            return done(Response.text(400, "the body must be the replication factor, a decimal number"));
        }
        return group.submit(new MetadataCommand.SetReplicationFactor(factor)).handle((outcome, failure) -> {
            if (failure != null) {
                return noMajority(failure);
            }
            if (!outcome.applied()) {
                return Response.text(409, "refused: " + outcome.reason());
            }
            return Response.of(200, ("{\"epoch\":" + outcome.epoch() + ",\"replicationFactor\":" + factor + "}")
                    .getBytes(StandardCharsets.UTF_8)).withHeader("Content-Type", "application/json");
        });
    }

    private CompletionStage<Response> join(String url, String sender) {
        Optional<ClusterNode> node = joiningNode(url, sender);
        if (node.isEmpty()) {
            return done(badJoiner(url, sender));
        }
        Member member = new Member(Member.idOf(node.get()), node.get().id(), MemberState.JOINING, 0, null);
        return submitUnlessJoining(member, new MetadataCommand.AddMember(member));
    }

    private CompletionStage<Response> replace(String body, String sender) {
        String[] parts = body.split(" ", -1);
        if (parts.length != 2) {
            return done(Response.text(400, "the body must be DEAD_MEMBER_ID NEW_NODE_URL"));
        }
        Optional<ClusterNode> node = joiningNode(parts[1], sender);
        if (node.isEmpty()) {
            return done(badJoiner(parts[1], sender));
        }
        Member member;
        try {
            member = new Member(Member.idOf(node.get()), node.get().id(), MemberState.JOINING, 0, parts[0]);
        } catch (IllegalArgumentException e) {
            return done(Response.text(400, e.getMessage()));
        }
        return submitUnlessJoining(member, new MetadataCommand.Replace(parts[0], member));
    }

    /** A join asked again by a node that is joining or joined already gets the metadata as it is. */
    private CompletionStage<Response> submitUnlessJoining(Member member, MetadataCommand command) {
        return group.readLinearizable().thenCompose(now -> {
            Optional<Member> known = now.member(member.id());
            // Asked again by a node joining already (it restarted), or one that joined and restarts
            // with the same --join: the metadata as it is, nothing changed.
            boolean joining = known.isPresent() && known.get().state() == MemberState.JOINING
                    && java.util.Objects.equals(known.get().replacing(), member.replacing());
            boolean joined = known.isPresent() && known.get().state() == MemberState.NORMAL && known.get().url().equals(member.url());
            if (joining || joined) {
                return CompletableFuture.completedFuture(encoded(now));
            }
            return submit(command);
        }).exceptionally(MetadataAdminEndpoint::noMajority);
    }

    private CompletionStage<Response> memberState(String body) {
        String[] parts = body.split(" ", -1);
        if (parts.length != 2 && parts.length != 3) {
            return done(Response.text(400, "the body must be MEMBER_ID STATE [FROM_STATE] (each joining, normal, leaving or left)"));
        }
        Optional<MemberState> state = stateNamed(parts[1]);
        Optional<MemberState> from = parts.length == 3 ? stateNamed(parts[2]) : Optional.empty();
        if (state.isEmpty() || parts.length == 3 && from.isEmpty()) {
            String unknown = state.isEmpty() ? parts[1] : parts[2];
            return done(Response.text(400, "unknown state '" + io.ringkv.http.LogText.escape(unknown)
                    + "': joining, normal, leaving or left"));
        }
        if (parts[0].isEmpty() || parts[0].length() > Member.TEXT_BYTES_MAX) {
            return done(Response.text(400, "the member id must be 1 to " + Member.TEXT_BYTES_MAX + " characters"));
        }
        return submit(new MetadataCommand.SetMemberState(parts[0], state.get(), from.orElse(null)));
    }

    private static Optional<MemberState> stateNamed(String name) {
        try {
            return Optional.of(MemberState.valueOf(name.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private CompletableFuture<Response> submit(MetadataCommand command) {
        return group.submit(command).thenCompose(outcome -> {
            if (!outcome.applied()) {
                return CompletableFuture.completedFuture(Response.text(409, "refused: " + outcome.reason()));
            }
            return group.readLinearizable().thenApply(MetadataAdminEndpoint::encoded);
        }).exceptionally(MetadataAdminEndpoint::noMajority);
    }

    /** The node a join names, when it is the signed sender and speaks this node's scheme. */
    private Optional<ClusterNode> joiningNode(String url, String sender) {
        try {
            ClusterNode node = ClusterNode.parse(url);
            return node.id().equals(sender) && node.secure() == self.secure() ? Optional.of(node) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private Response badJoiner(String url, String sender) {
        return Response.text(400, "a join must name the node that sends it, as a URL of this cluster's scheme ("
                + (self.secure() ? "https" : "http") + "://host:port); got " + io.ringkv.http.LogText.escape(url)
                + " from " + io.ringkv.http.LogText.escape(sender));
    }

    private static Response encoded(ClusterMetadata metadata) {
        return Response.of(200, MetadataCodec.encode(metadata)).withHeader("Content-Type", "application/octet-stream");
    }

    private static Response noMajority(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return Response.text(503, "no majority of the metadata voters answered (" + cause
                + "); check that most of them run, then ask again");
    }

    private static CompletionStage<Response> done(Response response) {
        return CompletableFuture.completedFuture(response);
    }
}
