package io.ringkv.cluster.meta;

import java.io.IOException;

/**
 * Bytes that should hold cluster metadata, a command or a snapshot do not: wrong version, wrong
 * length, a value out of range. Never skipped: the state machine stops applying on it.
 */
public final class CorruptMetadataException extends IOException {
    public CorruptMetadataException(String message) {
        super(message);
    }
}
