package io.ringkv.node;

/** Fewer than {@code ack} replicas answered in time. The API answers 504; safe to retry. */
public class NotEnoughReplicasException extends Exception {
    public NotEnoughReplicasException(String message) {
        super(message);
    }
}
