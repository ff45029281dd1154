package io.ringkv.node.access;

/** A token file that cannot be used: unreadable, or a line that is not a token; the message says which and why. */
public final class TokenFileException extends Exception {
    private static final long serialVersionUID = 1L;

    public TokenFileException(String message) {
        super(message);
    }

    public TokenFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
