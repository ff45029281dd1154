package io.ringkv.node;

import io.ringkv.cluster.InternalAuth;
import io.ringkv.http.server.Request;
import java.util.Map;

/**
 * How a node's dashboard reads its peers' admin pages ({@code /metrics}, {@code /ui/api/events})
 * when they check tokens: each read is signed with the cluster secret, as internal requests are
 * ({@link InternalAuth}: method, target, receiver and time under an HMAC, within 30 s), and a node accepts
 * such a proof on those pages as the {@code admin} scope, for {@code GET} and {@code HEAD} only.
 *
 * <p>Why not a token: a node would have to hold an admin token in clear, while token files hold
 * only hashes; and every node already holds the cluster secret, which grants far more (the whole
 * internal plane) than reading metrics. A node that checks no tokens ignores the proof.
 *
 * <p>Thread-safe ({@link InternalAuth} is).
 */
final class PeerSignature {
    private static final byte[] NO_BODY = new byte[0];

    private final InternalAuth auth;

    PeerSignature(InternalAuth auth) {
        this.auth = auth;
    }

    /**
     * The header fields of a signed {@code GET} of {@code target} (path and query, as sent) from
     * node {@code receiver}; the proof names the receiver, so another node refuses it.
     */
    Map<String, String> sign(String receiver, String target) {
        return auth.sign(receiver, "GET", target, Map.of(), NO_BODY);
    }

    /**
     * Whether a request's head, its body not read yet, is a {@code GET} or {@code HEAD} carrying a
     * valid proof from a node of this cluster: all but the body's digest ({@link #verifies}).
     */
    boolean verifiesHead(Request head) {
        return reads(head) && auth.checkHead(head.method(), InternalAuth.target(head.path(), head.query()), head.headers())
                == InternalAuth.Check.OK;
    }

    /** Whether the request is a {@code GET} or {@code HEAD} carrying a valid proof from a node of this cluster. */
    boolean verifies(Request request) {
        return reads(request) && request.headers().first(InternalAuth.AUTH_HEADER).isPresent()
                && auth.check(request) == InternalAuth.Check.OK;
    }

    /** A proof is accepted on the admin pages for reads only. */
    private static boolean reads(Request request) {
        return request.method().equals("GET") || request.method().equals("HEAD");
    }
}
