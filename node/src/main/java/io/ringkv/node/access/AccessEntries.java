package io.ringkv.node.access;

import java.util.List;
import java.util.stream.Stream;

/** What a token file grants: its token lines and its certificate lines. Immutable. */
public record AccessEntries(List<StoredToken> tokens, List<StoredCertificate> certificates) {

    public AccessEntries {
        tokens = List.copyOf(tokens);
        certificates = List.copyOf(certificates);
    }

    public int size() {
        return tokens.size() + certificates.size();
    }

    /** Every line's grant, token lines first. */
    public List<Grant> grants() {
        return Stream.concat(tokens.stream().map(StoredToken::grant), certificates.stream().map(StoredCertificate::grant))
                .toList();
    }
}
