package io.ringkv.cluster.meta;

/**
 * A well-formed command that the current metadata does not allow (an unknown member, a replication
 * factor above the member count, a second initialisation). It changes nothing; every replica
 * refuses it alike, since the decision depends on the metadata alone.
 */
public final class MetadataRefusedException extends Exception {
    public MetadataRefusedException(String message) {
        super(message);
    }
}
