package io.ringkv.cluster;

import io.ringkv.store.Record;

/**
 * The answer to a replicated GET, decided from the freshest of the first {@code ack} answers:
 * {@link Found} ({@code 200} with the value), {@link NotFound} ({@code 404}: no replica had the
 * key, or the freshest record is a tombstone or expired) or {@link NotEnoughReplicas} ({@code 504}).
 */
public sealed interface ReadOutcome permits ReadOutcome.Found, ReadOutcome.NotFound, NotEnoughReplicas {

    /** @param record the freshest record seen; never a tombstone, and not expired when the read was decided */
    record Found(Record record) implements ReadOutcome {
        public byte[] value() {
            return record.value();
        }
    }

    record NotFound() implements ReadOutcome {
    }
}
