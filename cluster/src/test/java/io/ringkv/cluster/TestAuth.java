package io.ringkv.cluster;

import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.StorageEngine;
import io.ringkv.cluster.peer.H2PeerTransport;
import io.ringkv.cluster.peer.PeerTransport;
import java.time.Duration;

/** One cluster secret and topology for tests of the internal plane, and the parts made with them. */
final class TestAuth {
    static final ClusterSecret SECRET = ClusterSecret.of("a test secret that is long enough");
    static final String TOPOLOGY = "0123456789abcdef";
    /** The node {@link #auth()} speaks for, and the receiver {@link #handler(StorageEngine, HybridLogicalClock)} accepts. */
    static final String SELF = "http://127.0.0.1:1";

    private TestAuth() {
    }

    static InternalAuth auth() {
        return new InternalAuth(SECRET, SELF, TOPOLOGY, System::currentTimeMillis);
    }

    static InternalAuth auth(ClusterSecret secret, String topology) {
        return new InternalAuth(secret, SELF, topology, System::currentTimeMillis);
    }

    /** The default bound of 500 ms, against the given clock, for a cluster of three. */
    static ClockSkew skew(HybridLogicalClock clock) {
        return new ClockSkew(clock, ClusterSettings.DEFAULT_MAX_CLOCK_OFFSET.toMillis(), java.util.Set.of("http://127.0.0.1:1"));
    }

    static ReplicaClient client(PeerTransport peers, Duration timeout) {
        return new ReplicaClient(peers, timeout, auth(), new TopologyWatch(TOPOLOGY));
    }

    /**
     * A client whose requests carry the metadata epoch {@code epoch} holds when each leaves; the
     * epochs its peers answer with change nothing (the test decides what this node knows).
     */
    static ReplicaClient client(PeerTransport peers, Duration timeout, java.util.concurrent.atomic.AtomicLong epoch) {
        return new ReplicaClient(peers, timeout, auth(), new TopologyWatch(TOPOLOGY),
                io.ringkv.http.h1.H1Limits.defaults().bodyBytesMax(), new EpochExchange() {
                    @Override
                    public long epoch() {
                        return epoch.get();
                    }

                    @Override
                    public void heard(ClusterNode peer, long theirs) {
                        // told by the test alone
                    }
                });
    }

    /**
     * The transport a node uses by default ({@link H2PeerTransport}), on an event loop of its own:
     * a 500 ms connect timeout, a PING after 1 s of quiet answered within 2 s.
     */
    static PeerTransport peers(java.util.concurrent.Executor executor) {
        return new H2PeerTransport(null, executor, null, Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
                64 << 20);
    }

    /**
     * Closes a test's resources, the last added first, then its peer transport and the executor
     * under it, and checks that the executor's threads ended.
     */
    static void closeAll(java.util.List<AutoCloseable> resources, PeerTransport peers,
                         java.util.concurrent.ExecutorService executor) throws Exception {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        peers.close();
        executor.shutdownNow();
        org.hamcrest.MatcherAssert.assertThat(executor.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS),
                org.hamcrest.Matchers.is(true));
    }

    /** A handler that takes requests addressed to {@link #SELF}, for tests that call it directly. */
    static InternalApiHandler handler(StorageEngine engine, HybridLogicalClock clock) {
        return handler(SELF, engine, clock);
    }

    /** @param self the URL the handler is served at: requests must name it as their receiver */
    static InternalApiHandler handler(String self, StorageEngine engine, HybridLogicalClock clock) {
        return handler(self, engine, clock, null);
    }

    static InternalApiHandler handler(String self, StorageEngine engine, HybridLogicalClock clock, AntiEntropy antiEntropy) {
        InternalAuth auth = new InternalAuth(SECRET, ClusterNode.parse(self).id(), TOPOLOGY, System::currentTimeMillis);
        return new InternalApiHandler(engine, clock, auth, new TopologyWatch(TOPOLOGY), antiEntropy, skew(clock));
    }

    /**
     * A handler at {@code self} whose node knows {@code metadata} (the epoch its answers carry and
     * its gate compares with), its Paxos acceptor {@code acceptor}; a sender ahead waits at most
     * {@code catchUpWait} for a catch-up that has no metadata leader to read from.
     */
    static InternalApiHandler handlerKnowing(String self, StorageEngine engine, HybridLogicalClock clock,
                                             io.ringkv.cluster.meta.ClusterMetadata metadata, PaxosAcceptor acceptor,
                                             java.time.Duration catchUpWait) {
        KnownMetadata known = new KnownMetadata();
        known.offer(metadata);
        InternalAuth auth = new InternalAuth(SECRET, ClusterNode.parse(self).id(), TOPOLOGY, System::currentTimeMillis);
        return new InternalApiHandler(engine, clock, auth, new TopologyWatch(TOPOLOGY), null, skew(clock), acceptor,
                new EpochGate(new MetadataCatchUp(known), catchUpWait), Runnable::run, Runnable::run);
    }
}
