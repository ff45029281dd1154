package io.ringkv.node.access;

import java.util.List;

/** What a token file grants: its token lines and its certificate lines. Immutable. */
public record AccessEntries(List<StoredToken> tokens, List<StoredCertificate> certificates) {

    public AccessEntries {
        tokens = List.copyOf(tokens);
        certificates = List.copyOf(certificates);
    }

    public int size() {
        return tokens.size() + certificates.size();
    }
}
