package io.ringkv.node;

import io.ringkv.http.server.HeadAdmission;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.Request;
import io.ringkv.http.server.Response;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.AuthorizationField;
import io.ringkv.node.access.CertificateIdentity;
import io.ringkv.node.access.Credentials;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenRegistry;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;
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
 * {@code error="invalid_request"} for a malformed {@code Authorization} field, and
 * {@code error="invalid_token"} too for one whose line's {@code expires=} this node's clock has
 * reached), {@code 403} with
 * {@code error="insufficient_scope"} for a token without the route's scope or outside its key
 * prefix. A {@code 401} on an admin page (metrics, dashboard) also offers {@code Basic}, so that a
 * browser shows its login prompt; the token is the password there. Every answer has a message.
 *
 * <p>A request over a TLS connection whose client certificate ({@code serve --tls-client-auth})
 * is named by a {@code cert:} line of the token file gets that line's grant, whatever else it
 * carries. A verified certificate that no line names, or whose line has expired, does not stand
 * in the way of a token or a peer's proof; without either, the answer is {@code 403} naming the
 * certificate's subject (and the expiry).
 *
 * <p>A request without an {@code Authorization} field that carries a valid proof of the cluster
 * secret ({@link PeerSignature}) is a peer's dashboard reading this node's admin pages: it gets
 * the {@code admin} scope for that {@code GET}.
 *
 * <p>Threading: {@link #handle} on handler threads, or on event loops for the requests the next
 * handler runs there ({@link #onLoop}); {@link #admit} on event loops (a token
 * lookup hashes once and compares in memory: no blocking); {@link #peers} once, from the starting thread,
 * when the node knows its cluster (until then peer proofs are not accepted).
 */
final class AccessControl implements HttpHandler, HeadAdmission {
    private static final Logger log = LoggerFactory.getLogger(AccessControl.class);
    private static final String REALM = "realm=\"ringkv\"";
    private static final String BEARER = "Bearer " + REALM;
    private static final String BASIC = "Basic " + REALM + ", charset=\"UTF-8\"";
    private static final Grant PEER = new Grant("cluster peer", EnumSet.of(AccessScope.ADMIN), null);
    /** The note of a request whose head this check let through for good; only this class makes it. */
    private static final Object ADMITTED_AT_HEAD = new Object();

    private final TokenRegistry tokens;
    private final HttpHandler next;
    /** What a line's {@code expires=} is judged by: this node's wall clock. */
    private final Clock clock = Clock.systemUTC();
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
        if (request.admissionNote() == ADMITTED_AT_HEAD) {
            return next.handle(request); // the head's check decided it; the body changes nothing
        }
        Outcome outcome = check(request, true);
        return outcome.refusal() != null ? done(outcome.refusal()) : next.handle(request);
    }

    /**
     * The same checks at the request's head, before its body is read (event loop): a request
     * without a valid token, or with one that lacks the route's scope or key prefix, is answered
     * now, so a stranger's body is never buffered. A request without a token that carries a
     * peer's valid proof and a body is let through: the proof names the body's digest, which
     * {@link #handle} compares. A request that passes goes on to the next handler's head checks.
     */
    @Override
    public Optional<Response> admit(HeadAdmission.Head head) {
        return Optional.ofNullable(verdict(head).answer());
    }

    /**
     * As {@link #admit}; a request the head's check decided to let through carries
     * {@link #ADMITTED_AT_HEAD} to {@link #handle}, so its credential is looked up once (a token
     * lookup hashes and compares against every stored hash). A request the head could not decide
     * (a peer's proof with a body), or whose next handler leaves a note of its own, is checked
     * again in full by {@link #handle}.
     */
    @Override
    public HeadAdmission.Verdict verdict(HeadAdmission.Head head) {
        Outcome outcome = check(head.withoutBody(), head.contentLength() == 0);
        if (outcome.refusal() != null) {
            return HeadAdmission.Verdict.answer(outcome.refusal());
        }
        HeadAdmission.Verdict after = next instanceof HeadAdmission heads ? heads.verdict(head) : HeadAdmission.Verdict.PASS;
        if (after.answer() != null || after.note() != null || !outcome.decided()) {
            return after;
        }
        return HeadAdmission.Verdict.pass(ADMITTED_AT_HEAD);
    }

    /**
     * What a check found.
     *
     * @param refusal the answer refusing the request, or null to let it pass
     * @param decided whether letting it pass is final: false when a peer's proof waits for the body it covers
     */
    private record Outcome(Response refusal, boolean decided) {
        static final Outcome ALLOWED = new Outcome(null, true);
        static final Outcome AWAITING_BODY = new Outcome(null, false);

        static Outcome refused(Response refusal) {
            return new Outcome(refusal, true);
        }
    }

    /** The next handler's limit for a request {@link #admit} let through. */
    @Override
    public long bodyBytesMax(HeadAdmission.Head head) {
        return next instanceof HeadAdmission heads ? heads.bodyBytesMax(head) : Long.MAX_VALUE;
    }

    /** As the next handler says (the node-to-node plane's calls). */
    @Override
    public boolean priority(HeadAdmission.Head head) {
        return next instanceof HeadAdmission heads && heads.priority(head);
    }

    /**
     * As the next handler says: {@link #handle}'s own checks never block (a token lookup hashes and
     * compares in memory, a peer's proof is a MAC).
     */
    @Override
    public boolean onLoop(HeadAdmission.Head head) {
        return next instanceof HeadAdmission heads && heads.onLoop(head);
    }

    /**
     * @param bodyKnown whether {@code request} carries its whole body: before it, a peer's proof is
     *                  judged at its head and the request let through to wait for the body it names
     * @return the answer refusing the request, or none to let it pass
     */
    private Outcome check(Request request, boolean bodyKnown) {
        AccessPolicy.Requirement requirement = AccessPolicy.requirement(request);
        if (requirement == AccessPolicy.Requirement.OPEN) {
            return Outcome.ALLOWED;
        }
        List<X509Certificate> chain = request.peerCertificates();
        Optional<Grant> byCertificate = tokens.findCertificateOf(chain);
        if (byCertificate.isPresent() && !expired(byCertificate.get())) {
            return decision(byCertificate.get(), requirement, request);
        }
        Grant grant;
        switch (AuthorizationField.read(request.headers())) {
            case Credentials.Malformed malformed -> {
                return Outcome.refused(unauthorized(requirement, malformed.reason(), "invalid_request", "Malformed Authorization field"));
            }
            case Credentials.None none -> {
                PeerSignature signature = peers;
                boolean peerProof = signature != null && request.headers().first(io.ringkv.cluster.InternalAuth.AUTH_HEADER).isPresent();
                boolean reads = request.method().equals("GET") || request.method().equals("HEAD");
                if (peerProof && !bodyKnown && reads && signature.verifiesHead(request)) {
                    return Outcome.AWAITING_BODY; // the body's digest, which the proof names, is compared once it is in
                }
                if (!peerProof && !chain.isEmpty()) {
                    return Outcome.refused(byCertificate.isPresent() ? expiredCertificate(chain.getFirst(), byCertificate.get())
                            : unmappedCertificate(chain.getFirst()));
                }
                if (!peerProof || !bodyKnown || !signature.verifies(request)) {
                    return Outcome.refused(unauthorized(requirement, "authentication required: send 'Authorization: Bearer TOKEN' "
                            + "with a token of this node's token file", null, null));
                }
                grant = PEER;
            }
            case Credentials.Token token -> {
                Optional<Grant> found = tokens.find(token.token());
                if (found.isEmpty()) {
                    return Outcome.refused(unauthorized(requirement, "the token is not valid: it is not in this node's token file "
                            + "(or was removed from it)", "invalid_token", "Unknown token"));
                }
                grant = found.get();
                if (expired(grant)) {
                    return Outcome.refused(unauthorized(requirement, "token '" + grant.name() + "' expired at " + grant.expiresAt()
                            + " (this node's clock reads " + clock.instant().truncatedTo(ChronoUnit.SECONDS)
                            + "); make a new one with ringkv token", "invalid_token", "Expired token"));
                }
            }
        }
        return decision(grant, requirement, request);
    }

    /** Whether the grant's line has an {@code expires=} that this node's clock has reached (no clock read without one). */
    private boolean expired(Grant grant) {
        return grant.expiresAt() != null && grant.expiredAt(clock.instant());
    }

    private static Outcome decision(Grant grant, AccessPolicy.Requirement requirement, Request request) {
        return switch (AccessPolicy.decide(grant, requirement, request)) {
            case AccessPolicy.Decision.Allowed allowed -> Outcome.ALLOWED;
            case AccessPolicy.Decision.Refused refused -> Outcome.refused(forbidden(refused));
            case AccessPolicy.Decision.Invalid invalid -> Outcome.refused(Response.text(400, invalid.message()));
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

    /**
     * A client certificate the handshake verified but that no {@code cert:} line names, on a
     * request without other credentials: the client is known, it is not allowed in.
     */
    private static Response unmappedCertificate(X509Certificate leaf) {
        String subject = CertificateIdentity.subject(leaf);
        log.debug("403 unmapped client certificate {}", subject);
        return Response.text(403, "the client certificate '" + subject + "' is valid but no cert: line of this node's "
                + "token file names its subject CN or a subject alternative name")
                .withHeader("WWW-Authenticate", BEARER + ", error=\"insufficient_scope\", error_description=\"Unknown client certificate\"");
    }

    /** A client certificate whose {@code cert:} line has expired, on a request without other credentials. */
    private static Response expiredCertificate(X509Certificate leaf, Grant grant) {
        String subject = CertificateIdentity.subject(leaf);
        log.debug("403 client certificate {} of an expired line", subject);
        return Response.text(403, "the client certificate '" + subject + "' is named by the cert: line '" + grant.name()
                + "' of this node's token file, which expired at " + grant.expiresAt())
                .withHeader("WWW-Authenticate", BEARER + ", error=\"insufficient_scope\", error_description=\"Expired client certificate line\"");
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
