package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.Optional;

/** How a compare-and-set ended ({@link CompareAndSet}). */
public sealed interface CasOutcome {

    /** The condition held and the write is chosen and stored on at least {@code ack} replicas. */
    record Applied(Record record) implements CasOutcome {
    }

    /**
     * The condition did not hold; nothing was written.
     *
     * @param live the current record the condition was judged against (value left out), empty when absent
     */
    record Refused(Optional<Record> live) implements CasOutcome {
    }

    /**
     * Nothing was written, for want of a quorum or after losing every attempt to concurrent
     * proposals; a retry may succeed.
     */
    record NotWritten(String message) implements CasOutcome {
    }

    /**
     * The write may or may not have been chosen (an accept reached some replicas but the round was
     * lost, or its commit fell short of {@code ack}): read the key to find out.
     */
    record Unknown(String message) implements CasOutcome {
    }
}
