package io.ringkv.cluster;

import io.ringkv.store.Record;
import java.util.concurrent.CompletableFuture;

/**
 * One replica's acceptor as a compare-and-set's proposer sees it: this node's own
 * ({@link #local}) or a peer's over the internal plane ({@link #remote}).
 *
 * <p>Contract: never throws; failures (timeouts, refused connections, unexpected statuses, answers
 * without a valid proof, storage errors) complete the future exceptionally, within the replica
 * client's request timeout.
 */
interface PaxosPeer {

    ClusterNode node();

    /**
     * @param roundEpoch the metadata epoch the round was started under, which the acceptor checks
     *                   against its own ({@link PaxosAcceptor}); {@link PaxosAcceptor#NO_EPOCH}: none
     */
    CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot, long roundEpoch);

    /** @param roundEpoch as for {@link #prepare} */
    CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record, long roundEpoch);

    /** This node's acceptor, called on the calling thread. */
    static PaxosPeer local(ClusterNode node, PaxosAcceptor acceptor) {
        return new PaxosPeer() {
            @Override
            public ClusterNode node() {
                return node;
            }

            @Override
            public CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot, long roundEpoch) {
                try {
                    return CompletableFuture.completedFuture(acceptor.prepare(key, ballot, roundEpoch));
                } catch (Exception e) {
                    return CompletableFuture.failedFuture(e);
                }
            }

            @Override
            public CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record, long roundEpoch) {
                try {
                    return CompletableFuture.completedFuture(acceptor.accept(key, ballot, record, roundEpoch));
                } catch (Exception e) {
                    return CompletableFuture.failedFuture(e);
                }
            }
        };
    }

    /** A peer's acceptor through {@code client}. */
    static PaxosPeer remote(ClusterNode node, ReplicaClient client) {
        return new PaxosPeer() {
            @Override
            public ClusterNode node() {
                return node;
            }

            @Override
            public CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot, long roundEpoch) {
                return client.paxosPrepare(node, new PaxosMessages.Prepare(key, ballot), roundEpoch);
            }

            @Override
            public CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record, long roundEpoch) {
                return client.paxosAccept(node, new PaxosMessages.Accept(key, ballot, record), roundEpoch);
            }
        };
    }
}
