package io.ringkv.node;

import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.AuthorizationField;
import io.ringkv.node.access.Credentials;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenRegistry;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's handler when it checks tokens ({@code serve --auth-file}): finds the request's
 * grant, asks the {@link AccessPolicy} whether it may pass, and answers for it when not, as
 * RFC 6750 §3 says: {@code 401} with a {@code WWW-Authenticate: Bearer realm="ringkv"} challenge
 * when there is no token ({@code error="invalid_token"} for one the node does not know,
 * {@code error="invalid_request"} for a malformed {@code Authorization} field), {@code 403} with
 * {@code error="insufficient_scope"} for a token without the route's scope or outside its key
 * prefix. A {@code 401} on an admin page (metrics, dashboard) also offers {@code Basic}, so that a
 * browser shows its login prompt; the token is the password there. Every answer has a message.
 *
 * <p>A request without an {@code Authorization} field that carries a valid proof of the cluster
 * secret ({@link PeerSignature}) is a peer's dashboard reading this node's admin pages: it gets
 * the {@code admin} scope for that {@code GET}.
 *
 * <p>Threading: {@link #handle} on handler threads, {@link #admit} on event loops (a token
 * lookup hashes once and compares in memory: no blocking); {@link #peers} once, from the starting thread,
 * when the node knows its cluster (until then peer proofs are not accepted).
 */
final class AccessControl implements HttpHandler, HeadAdmission {
    private static final Logger log = LoggerFactory.getLogger(AccessControl.class);
    private static final String REALM = "realm=\"ringkv\"";
    private static final String BEARER = "Bearer " + REALM;
    private static final String BASIC = "Basic " + REALM + ", charset=\"UTF-8\"";
    private static final Grant PEER = new Grant("cluster peer", EnumSet.of(AccessScope.ADMIN), null);

    private final TokenRegistry tokens;
    private final HttpHandler next;
    private volatile PeerSignature peers;

    AccessControl(TokenRegistry tokens, HttpHandler next) {
        this.tokens = tokens;
        this.next = next;
    }

    void peers(PeerSignature signature) {
        peers = signature;
    }

    @Override
    public CompletionStage<Response> handle(Request request) throws Exception {
        Optional<Response> refusal = refusal(request, true);
        return refusal.isPresent() ? done(refusal.get()) : next.handle(request);
    }

    /**
     * The same checks at the request's head, before its body is read (event loop): a request
     * without a valid token, or with one that lacks the route's scope or key prefix, is answered
     * now, so a stranger's body is never buffered. A request without a token that carries a
     * peer's proof and a body is let through: its proof covers the body, and {@link #handle}
     * checks it. A request that passes goes on to the next handler's head checks.
     */
    @Override
    public Optional<Response> admit(HeadAdmission.Head head) {
        Optional<Response> refusal = refusal(head.withoutBody(), head.contentLength() == 0);
        if (refusal.isPresent()) {
            return refusal;
        }
        return next instanceof HeadAdmission heads ? heads.admit(head) : Optional.empty();
    }

    /** The next handler's limit for a request {@link #admit} let through. */
    @Override
    public long bodyBytesMax(HeadAdmission.Head head) {
        return next instanceof HeadAdmission heads ? heads.bodyBytesMax(head) : Long.MAX_VALUE;
    }

    /**
     * @param bodyKnown whether {@code request} carries its whole body: a peer's proof is judged
     *                  only then (it covers the body)
     * @return the answer refusing the request, or empty to let it pass
     */
    private Optional<Response> refusal(Request request, boolean bodyKnown) {
        AccessPolicy.Requirement requirement = AccessPolicy.requirement(request);
        if (requirement == AccessPolicy.Requirement.OPEN) {
            return Optional.empty();
        }
        Grant grant;
        switch (AuthorizationField.read(request.headers())) {
            case Credentials.Malformed malformed -> {
                return Optional.of(unauthorized(requirement, malformed.reason(), "invalid_request", "Malformed Authorization field"));
            }
            case Credentials.None none -> {
                PeerSignature signature = peers;
                boolean peerProof = signature != null && request.headers().first(io.ringkv.cluster.InternalAuth.AUTH_HEADER).isPresent();
                boolean reads = request.method().equals("GET") || request.method().equals("HEAD");
                if (peerProof && !bodyKnown && reads) {
                    return Optional.empty(); // judged once the body, which the proof covers, is in
                }
                if (!peerProof || !signature.verifies(request)) {
                    return Optional.of(unauthorized(requirement, "authentication required: send 'Authorization: Bearer TOKEN' "
                            + "with a token of this node's token file", null, null));
                }
                grant = PEER;
            }
            case Credentials.Token token -> {
                Optional<Grant> found = tokens.find(token.token());
                if (found.isEmpty()) {
                    return Optional.of(unauthorized(requirement, "the token is not valid: it is not in this node's token file "
                            + "(or was removed from it)", "invalid_token", "Unknown token"));
                }
                grant = found.get();
            }
        }
        return switch (AccessPolicy.decide(grant, requirement, request)) {
            case AccessPolicy.Decision.Allowed allowed -> Optional.empty();
            case AccessPolicy.Decision.Refused refused -> Optional.of(forbidden(refused));
            case AccessPolicy.Decision.Invalid invalid -> Optional.of(Response.text(400, invalid.message()));
        };
    }

    /**
     * @param error       the RFC 6750 error code, or null when no credential was offered (§3.1: then none)
     * @param description a fixed text for the challenge's error_description (its syntax allows no quotes)
     */
    private static Response unauthorized(AccessPolicy.Requirement requirement, String message, String error, String description) {
        log.debug("401 {}", message);
        Response response = Response.text(401, message).withHeader("WWW-Authenticate",
                error == null ? BEARER : BEARER + ", error=\"" + error + "\", error_description=\"" + description + "\"");
        return requirement == AccessPolicy.Requirement.ADMIN ? response.withHeader("WWW-Authenticate", BASIC) : response;
    }

    private static Response forbidden(AccessPolicy.Decision.Refused refused) {
        log.debug("403 {}", refused.message());
        String challenge = BEARER + ", error=\"insufficient_scope\""
                + (refused.missingScope() == null ? ", error_description=\"Key outside the token's prefix\""
                : ", scope=\"" + refused.missingScope().label() + "\"");
        return Response.text(403, refused.message()).withHeader("WWW-Authenticate", challenge);
    }

    private static CompletionStage<Response> done(Response response) {
        return CompletableFuture.completedFuture(response);
    }
}
