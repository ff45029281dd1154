package io.ringkv.node.access;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a request may do once its credential is known: the token's name (for answers and logs,
 * never the token itself), its scopes, the key prefix it is limited to ({@code null}: every key)
 * and the instant it stops being accepted ({@code null}: never). Immutable.
 */
public record Grant(String name, Set<AccessScope> scopes, KeyPrefix prefix, Instant expiresAt) {

    public Grant {
        scopes = Set.copyOf(EnumSet.copyOf(scopes));
    }

    /** A grant that does not expire. */
    public Grant(String name, Set<AccessScope> scopes, KeyPrefix prefix) {
        this(name, scopes, prefix, null);
    }

    public boolean has(AccessScope scope) {
        return scopes.contains(scope);
    }

    /** Whether it has expired by {@code now}: at its expiry instant it is no longer accepted. */
    public boolean expiredAt(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }
}
