package io.ringkv.cluster;

/**
 * The {@code replicas} parameter is malformed or impossible for this cluster. The message is
 * written for the client: the node answers {@code 400 Bad Request} with it as the body.
 * An {@link IllegalArgumentException}, so a handler that maps those to 400 needs nothing new.
 */
public final class InvalidReplicasException extends IllegalArgumentException {
    public InvalidReplicasException(String message) {
        super(message);
    }
}
