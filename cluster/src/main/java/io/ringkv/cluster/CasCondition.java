package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.Optional;

/**
 * The precondition of a compare-and-set, judged against the key's current record as the Paxos
 * round read it at a quorum of the key's replicas.
 */
@FunctionalInterface
public interface CasCondition {

    /**
     * @param live the current record, its value left out; empty when the key is absent, deleted or
     *             expired (by the proposing node's clock)
     */
    boolean holds(Optional<Record> live);
}
