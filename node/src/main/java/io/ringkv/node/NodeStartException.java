package io.ringkv.node;

/** The node could not start: the message says what to fix (port taken, data directory unusable...). */
public class NodeStartException extends Exception {
    public NodeStartException(String message, Throwable cause) {
        super(message, cause);
    }

    public NodeStartException(String message) {
        super(message);
    }
}
