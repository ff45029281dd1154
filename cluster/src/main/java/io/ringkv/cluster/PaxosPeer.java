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

    CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot);

    CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record);

    /** This node's acceptor, called on the calling thread. */
    static PaxosPeer local(ClusterNode node, PaxosAcceptor acceptor) {
        return new PaxosPeer() {
            @Override
            public ClusterNode node() {
                return node;
            }

            @Override
            public CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot) {
                try {
                    return CompletableFuture.completedFuture(acceptor.prepare(key, ballot));
                } catch (Exception e) {
                    return CompletableFuture.failedFuture(e);
                }
            }

            @Override
            public CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record) {
                try {
                    return CompletableFuture.completedFuture(acceptor.accept(key, ballot, record));
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
            public CompletableFuture<PaxosMessages.Promise> prepare(byte[] key, long ballot) {
                return client.paxosPrepare(node, new PaxosMessages.Prepare(key, ballot));
            }

            @Override
            public CompletableFuture<PaxosMessages.Accepted> accept(byte[] key, long ballot, Record record) {
                return client.paxosAccept(node, new PaxosMessages.Accept(key, ballot, record));
            }
        };
    }
}
