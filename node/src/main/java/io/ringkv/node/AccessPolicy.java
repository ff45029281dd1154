package io.ringkv.node;

import io.ringkv.cluster.InternalProtocol;
import io.ringkv.http.server.Request;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.KeyPrefix;
import io.ringkv.node.dashboard.Dashboard;
import java.util.Optional;

/**
 * What each of the node's routes needs when access control is on, and whether a grant allows a
 * request:
 *
 * <ul>
 *   <li>{@code /v0/status}: open. It is the load balancers' health check, which should not need a
 *       secret; it tells the node's state, uptime, version, peers and their states, never data.
 *   <li>{@code /internal/...}: open here, because the internal plane checks its own proof of the
 *       cluster secret on every request ({@code InternalAuth}); tokens do not apply to it.
 *   <li>{@code GET}/{@code HEAD /v0/entity} and {@code /v0/entities}: {@code read}; other methods
 *       on {@code /v0/entity} ({@code PUT}, {@code DELETE}): {@code write}.
 *   <li>{@code /metrics} and everything under {@code /ui}: {@code admin}.
 *   <li>any other path: any valid token (the API then answers it as it always does).
 * </ul>
 *
 * A token with a key prefix reaches only keys that start with it: the {@code id} of
 * {@code /v0/entity} must have the prefix, and a range must lie within it ({@code start} has the
 * prefix, {@code end} is given and at most the first key after the prefix's keys). A range that
 * reaches further is refused, not cut short, so a client never takes a clipped answer for the
 * whole. A request without the key parameter is let through: the API refuses it ({@code 400})
 * without touching a key. Parameters are read exactly as {@link PublicApi} reads them (first
 * occurrence, percent-decoded bytes), so the key checked is the key used.
 *
 * <p>Stateless.
 */
final class AccessPolicy {

    /** What a route needs. */
    enum Requirement {
        OPEN(null), AUTHENTICATED(null), READ(AccessScope.READ), WRITE(AccessScope.WRITE), ADMIN(AccessScope.ADMIN);

        private final AccessScope scope;

        Requirement(AccessScope scope) {
            this.scope = scope;
        }

        /** The scope it needs, if it needs one. */
        Optional<AccessScope> scope() {
            return Optional.ofNullable(scope);
        }
    }

    /** Whether a grant allows a request. */
    sealed interface Decision {
        record Allowed() implements Decision {
        }

        /** @param missingScope the scope the grant lacks; null when the scope is there but the key is outside its prefix */
        record Refused(String message, AccessScope missingScope) implements Decision {
        }

        /** A key parameter that cannot be read, so it cannot be checked against the prefix. */
        record Invalid(String message) implements Decision {
        }
    }

    private static final Decision ALLOWED = new Decision.Allowed();

    private AccessPolicy() {
    }

    static Requirement requirement(Request request) {
        String path = request.path();
        if (path.equals(StatusEndpoint.PATH) || path.startsWith(InternalProtocol.PREFIX)) {
            return Requirement.OPEN;
        }
        if (path.equals(MetricsEndpoint.PATH) || Dashboard.serves(path)) {
            return Requirement.ADMIN;
        }
        boolean reads = request.method().equals("GET") || request.method().equals("HEAD");
        return switch (path) {
            case PublicApi.ENTITY_PATH -> reads ? Requirement.READ : Requirement.WRITE;
            case PublicApi.ENTITIES_PATH -> Requirement.READ;
            default -> Requirement.AUTHENTICATED;
        };
    }

    static Decision decide(Grant grant, Requirement requirement, Request request) {
        Optional<AccessScope> scope = requirement.scope();
        if (scope.isEmpty()) {
            return ALLOWED;
        }
        if (!grant.has(scope.get())) {
            return new Decision.Refused("token '" + grant.name() + "' has scope" + (grant.scopes().size() == 1 ? " " : "s ")
                    + AccessScope.format(grant.scopes()) + "; "
                    + request.method() + " " + request.path() + " needs " + scope.get().label(), scope.get());
        }
        return grant.prefix() == null ? ALLOWED : keys(grant, request);
    }

    private static Decision keys(Grant grant, Request request) {
        KeyPrefix prefix = grant.prefix();
        String limited = "token '" + grant.name() + "' is limited to keys starting with '" + prefix.encoded() + "'";
        try {
            if (request.path().equals(PublicApi.ENTITY_PATH)) {
                byte[] id = request.queryParamBytes("id").orElse(new byte[0]);
                return id.length == 0 || prefix.covers(id) ? ALLOWED : new Decision.Refused(limited, null);
            }
            byte[] start = request.queryParamBytes("start").orElse(new byte[0]);
            byte[] end = request.queryParamBytes("end").filter(bytes -> bytes.length > 0).orElse(null);
            if (start.length == 0 || prefix.coversRange(start, end)) {
                return ALLOWED;
            }
            String bound = prefix.encodedEnd();
            return new Decision.Refused(limited + ": a range needs a start that begins with it"
                    + (bound == null ? "" : " and an end of at most '" + bound + "' (e.g. start=" + prefix.encoded()
                    + "&end=" + bound + ")"), null);
        } catch (IllegalArgumentException malformed) {
            return new Decision.Invalid(malformed.getMessage());
        }
    }
}
