package io.ringkv.cluster;

/**
 * The answer to a replicated PUT or DELETE: {@link Acknowledged} ({@code 201}/{@code 202}) or
 * {@link NotEnoughReplicas} ({@code 504}).
 */
public sealed interface WriteOutcome permits WriteOutcome.Acknowledged, NotEnoughReplicas {

    /**
     * At least {@code ack} replicas hold the write (or something fresher).
     *
     * @param timestamp the HLC timestamp the coordinator stamped on the record
     */
    record Acknowledged(long timestamp) implements WriteOutcome {
    }
}
