package io.ringkv.cluster;

/**
 * An acceptor's refusal of a compare-and-set round for the cluster metadata it was started under:
 * another epoch than the acceptor's, or a membership change in progress. A round's replicas are
 * the key's owners at the epoch its proposer read; an acceptor that has seen the owners change
 * takes no part in it, so that two rounds under different owner sets cannot each win a majority
 * of their own. Nothing was stored; the proposer may start again under the metadata of now
 * ({@code 503} with {@code Retry-After} on the internal plane).
 */
final class PaxosEpochException extends Exception {
    PaxosEpochException(String message) {
        super(message);
    }
}
