package io.ringkv.node.access;

/** What a request's {@code Authorization} field holds ({@link AuthorizationField#read}): nothing, a token, or something malformed. */
public sealed interface Credentials {

    /** No {@code Authorization} field. */
    record None() implements Credentials {
    }

    /** A token, well-formed; whether it is valid is for the {@link TokenRegistry}. */
    record Token(String token) implements Credentials {
        @Override
        public String toString() {
            return "Token[hidden]";
        }
    }

    /** An {@code Authorization} field that names no token the way this server reads them. */
    record Malformed(String reason) implements Credentials {
    }
}
