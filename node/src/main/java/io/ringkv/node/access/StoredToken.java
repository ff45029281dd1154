package io.ringkv.node.access;

import java.security.MessageDigest;
import java.util.Arrays;

/**
 * One line of a token file: what the token grants, and the SHA-256 of the token (never the token).
 *
 * @param line the line it was read from, for messages
 */
public record StoredToken(Grant grant, byte[] sha256, int line) {

    public StoredToken {
        sha256 = sha256.clone();
    }

    @Override
    public byte[] sha256() {
        return sha256.clone();
    }

    /** Whether {@code hash} is this token's, compared in constant time ({@link MessageDigest#isEqual}). */
    boolean matches(byte[] hash) {
        return MessageDigest.isEqual(hash, sha256);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StoredToken token && grant.equals(token.grant) && Arrays.equals(sha256, token.sha256)
                && line == token.line;
    }

    @Override
    public int hashCode() {
        return 31 * grant.hashCode() + Arrays.hashCode(sha256);
    }

    @Override
    public String toString() {
        return "StoredToken[" + grant.name() + ", line " + line + "]";
    }
}
