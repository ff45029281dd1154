package io.ringkv.node.access;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a request may do once its credential is known: the token's name (for answers and logs,
 * never the token itself), its scopes, and the key prefix it is limited to ({@code null}: every
 * key). Immutable.
 */
public record Grant(String name, Set<AccessScope> scopes, KeyPrefix prefix) {

    public Grant {
        scopes = Set.copyOf(EnumSet.copyOf(scopes));
    }

    public boolean has(AccessScope scope) {
        return scopes.contains(scope);
    }
}
