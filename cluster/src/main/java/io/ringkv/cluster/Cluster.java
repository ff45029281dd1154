package io.ringkv.cluster;

import io.ringkv.cluster.member.Decommission;
import io.ringkv.cluster.member.JoinProcedure;
import io.ringkv.cluster.member.MembershipCalls;
import io.ringkv.cluster.member.MembershipEndpoint;
import io.ringkv.cluster.member.MembershipProgress;
import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.LastKnownMetadataFile;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MetadataAdminEndpoint;
import io.ringkv.cluster.meta.MetadataGroup;
import io.ringkv.cluster.meta.MetadataSettings;
import io.ringkv.cluster.meta.RaftEndpoint;
import io.ringkv.cluster.meta.RaftPeerCalls;
import io.ringkv.cluster.peer.H2PeerTransport;
import io.ringkv.cluster.peer.HttpClientTransport;
import io.ringkv.cluster.peer.PeerTransport;
import io.ringkv.http.client.ClientStats;
import io.ringkv.net.EventLoopGroup;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster side of one node, wired: the topology, the coordinator for the public API, the
 * handler for the internal endpoints and the cluster-wide range. Owns the inter-node client and
 * its executor; {@link #close()} releases them. The storage engine and clock stay the caller's.
 *
 * <pre>{@code
 * Cluster cluster = Cluster.start(ClusterSettings.of(urls, selfUrl), engine, clock, handlerExecutor);
 * router.mount(InternalProtocol.PREFIX, cluster.internalHandler());
 * cluster.coordinator().put(key, value, ReplicationParams.parse(param, cluster.topology().size(),
 *         cluster.replicationFactor().current()));
 * cluster.range().open(start, end)   // -> ClusterRangeMerge, a ChunkSource for /v0/entities
 * }</pre>
 *
 * <p>Threading: every component is thread-safe; the only state set after {@link #start} is the
 * metadata group ({@link #startMetadata}), which a lock orders against {@link #close}.
 */
public final class Cluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Cluster.class);
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final ClusterNodes topology;
    private final ExecutorService clientExecutor;
    /** Probes of quiet peers, and their public pages for the dashboard. */
    private final HttpClient http;
    /** Replica calls, ranges, digests, membership steps and the metadata group's Raft calls. */
    private final PeerTransport peers;
    private final Coordinator coordinator;
    private final InternalApiHandler internalHandler;
    private final ClusterRange range;
    private final HintedHandoff hintedHandoff;
    private final AntiEntropy antiEntropy;
    /** Drops records this node does not own, after handing them to their owners ({@code ringkv cleanup}). */
    private final Cleanup cleanup;
    /** Runs {@link #cleanup} by itself when ownership moved away from this node. */
    private final OwnershipCleanups ownershipCleanups;
    private final TombstoneCollector tombstones;
    private final TopologyWatch topologyWatch;
    private final ClockSkew clockSkew;
    private final PeerHealth peerHealth;
    private final PeerProbe peerProbe;
    private final ClockCheck clockCheck;
    private final KeyReplicas keyReplicas;
    private final CompareAndSet compareAndSet;
    private final ReplicaClient client;
    /** Each member's Paxos peer, made on first use (members may join). */
    private final java.util.Map<ClusterNode, PaxosPeer> paxosPeers = new java.util.concurrent.ConcurrentHashMap<>();
    private final InternalAuth auth;
    private final ReplicationFactor replicationFactor;
    private final KnownMetadata knownMetadata = new KnownMetadata();
    private final MetadataCatchUp catchUp = new MetadataCatchUp(knownMetadata);
    private final EpochGate epochGate;
    /** Guards starting the metadata group against closing the cluster meanwhile. */
    private final Object metadataLock = new Object();
    private volatile MetadataGroup metadata;
    private boolean closed;
    /** Reads the metadata through members, for a node outside the group ({@link #followMetadataRemotely}). */
    private final java.util.concurrent.ScheduledExecutorService metadataPoll = DaemonScheduler.named("ringkv-metadata-poll");
    private volatile Decommission decommission;
    private volatile JoinProcedure join;
    /** This node joined a running cluster ({@code serve --join}): its metadata server starts outside the group. */
    private final boolean joinedCluster;

    /** How often a peer no request went to is probed. */
    static final java.time.Duration PROBE_INTERVAL = java.time.Duration.ofSeconds(1);

    private Cluster(ClusterSettings settings, ClusterNodes joined, StorageEngine engine, HybridLogicalClock clock,
                    Executor handlerExecutor, Executor storageExecutor, ReplicaCallListener callListener,
                    EventLoopGroup peerLoops) throws StoreException {
        this.topology = joined != null ? joined : ClusterNodes.of(settings.nodeUrls(), settings.selfUrl());
        this.joinedCluster = joined != null;
        this.replicationFactor = new ReplicationFactor(Math.min(settings.replicationFactor(), topology.size()), topology::size);
        // The view first: the factor's bound is the number of owners it names.
        knownMetadata.listen(topology::follow);
        knownMetadata.listen(replicationFactor::follow);
        this.epochGate = new EpochGate(catchUp, EpochGate.waitLimitFor(settings.replicaTimeout()));
        this.clientExecutor = InterNodeHttpClients.newExecutor(settings.clientThreads());
        this.http = InterNodeHttpClients.create(settings.transport(), clientExecutor, InterNodeHttpClients.DEFAULT_CONNECT_TIMEOUT,
                settings.replicaTimeout());
        if (topology.size() > 1 && settings.secret() == null) {
            throw new IllegalArgumentException("a cluster of " + topology.size() + " nodes needs a cluster secret; make one with: "
                    + ClusterSecret.HOW_TO_MAKE_ONE);
        }
        // One node talks to nobody and serves no internal endpoints: a random secret nobody knows.
        ClusterSecret secret = settings.secret() != null ? settings.secret() : ClusterSecret.of(ClusterSecret.generateText());
        this.topologyWatch = new TopologyWatch(topology.fingerprint());
        this.auth = new InternalAuth(secret, topology.self().id(), topology.fingerprint(), clock::wallMillis);
        this.clockSkew = new ClockSkew(clock, settings.maxClockOffset().toMillis(),
                topology.others().stream().map(ClusterNode::id).collect(java.util.stream.Collectors.toSet()));
        this.peers = settings.transport().client() == InterNodeClient.DIRECT
                ? new H2PeerTransport(peerLoops, clientExecutor, settings.transport().trust(),
                        InterNodeHttpClients.DEFAULT_CONNECT_TIMEOUT, InterNodeHttpClients.PEER_PING_INTERVAL,
                        settings.replicaTimeout(), answerBytesMax(settings.transport().peerBodyBytesMax()))
                : new HttpClientTransport(http);
        this.client = new ReplicaClient(peers, settings.replicaTimeout(), auth, topologyWatch,
                settings.transport().peerBodyBytesMax(), catchUp);
        LocalReplica local = new LocalReplica(topology.self(), engine, storageExecutor);
        this.peerHealth = new PeerHealth(topology.others(), System::currentTimeMillis);
        this.peerProbe = new PeerProbe(topology, http, peerHealth, PROBE_INTERVAL, settings.replicaTimeout());
        // A quarter of the replica timeout: well past any healthy answer, well before a timeout.
        SlowReplicaLog slow = new SlowReplicaLog(topology.others(), settings.replicaTimeout().toNanos() / 4);
        ReplicaCallListener calls = ReplicaCallListener.both(ReplicaCallListener.both(peerHealth, slow), callListener);
        this.clockCheck = new ClockCheck(topology.others(), client, clockSkew, clock::wallMillis, PROBE_INTERVAL.toMillis());
        this.hintedHandoff = new HintedHandoff(engine.hints(), topology, replicationFactor::current, client, settings.hints(),
                clock::wallMillis);
        int batchesPerPeer = settings.transport().batchesPerPeer();
        this.coordinator = new Coordinator(topology, Coordinator.replicasFor(topology, local, client, batchesPerPeer),
                node -> new RemoteReplica(node, client, batchesPerPeer), clock,
                new CoordinatorSettings(settings.coordinatorDeadline(), handlerExecutor, settings.readSpareDelay()), hintedHandoff,
                clockSkew, calls);
        this.keyReplicas = new KeyReplicas(topology::placement, coordinator::replica);
        this.tombstones = new TombstoneCollector(engine, settings.tombstoneGrace(), clock::wallMillis,
                clockSkew::agreedEarliestMillis);
        this.antiEntropy = new AntiEntropy(engine, topology, client, settings.antiEntropy(), tombstones::mayBeCollectedElsewhere,
                replicationFactor::current);
        PaxosAcceptor acceptor = new PaxosAcceptor(engine,
                timestamp -> tombstones.mayBeCollectedElsewhere(io.ringkv.store.Record.tombstone(timestamp)), topology::view);
        tombstones.alsoCollect(acceptor);
        this.compareAndSet = new CompareAndSet(topology, replicationFactor::current,
                node -> paxosPeers.computeIfAbsent(node, member -> topology.isSelf(member) ? PaxosPeer.local(member, acceptor)
                        : PaxosPeer.remote(member, client)),
                coordinator, clock, clockSkew, handlerExecutor);
        this.internalHandler = topology.size() > 1
                ? new InternalApiHandler(engine, clock, auth, topologyWatch, antiEntropy, clockSkew, acceptor, epochGate,
                        handlerExecutor, storageExecutor) : null;
        this.range = new ClusterRange(topology, engine, client, coordinator::expiryClockMillis, replicationFactor::current);
        this.cleanup = new Cleanup(engine, topology, replicationFactor::current, client,
                new ScanPacer(settings.streamBytesPerSecond()), client.requestTimeout().multipliedBy(2), antiEntropy::digestAgainst);
        if (internalHandler != null) {
            internalHandler.mountCleanup(cleanup);
        }
        // After the view's and the factor's listeners: a run it starts places keys by the new metadata.
        this.ownershipCleanups = new OwnershipCleanups(Member.idOf(topology.self()), cleanup::request);
        cleanup.whenSettled(ownershipCleanups::settled);
        knownMetadata.listen(ownershipCleanups::follow);
        topology.onChange((before, after) -> {
            List<ClusterNode> others = topology.others();
            peerHealth.members(others);
            slow.members(others);
            clockSkew.members(others.stream().map(ClusterNode::id).collect(java.util.stream.Collectors.toSet()));
            clockCheck.members(others);
            hintedHandoff.members(others);
        });
    }

    /**
     * @param handlerExecutor the node's bounded handler executor; the coordinator's deadline
     *                        expiries run there
     * @throws IllegalArgumentException for an invalid node list (see {@link ClusterNodes#of})
     * @throws StoreException when the store cannot be read for the anti-entropy digest, which is built
     *                        by one scan here: start the cluster before anything writes to {@code engine}
     */
    public static Cluster start(ClusterSettings settings, StorageEngine engine, HybridLogicalClock clock,
                                Executor handlerExecutor) throws StoreException {
        return start(settings, engine, clock, handlerExecutor, ReplicaCallListener.NONE);
    }

    /** As above; {@code calls} is told of every remote replica call of the coordinator (metrics). */
    public static Cluster start(ClusterSettings settings, StorageEngine engine, HybridLogicalClock clock,
                                Executor handlerExecutor, ReplicaCallListener calls) throws StoreException {
        return start(settings, null, engine, clock, handlerExecutor, calls);
    }

    /**
     * As above, for a node that joined a running cluster: {@code joined} is its view from the join's
     * answer ({@link ClusterNodes#joined}); {@code settings.nodeUrls()} are ignored but for the
     * replication factor's bound.
     */
    public static Cluster start(ClusterSettings settings, ClusterNodes joined, StorageEngine engine, HybridLogicalClock clock,
                                Executor handlerExecutor, ReplicaCallListener calls) throws StoreException {
        return start(settings, joined, engine, clock, handlerExecutor, handlerExecutor, calls);
    }

    /**
     * As above, with the executor where storage calls that would block an event loop run
     * ({@code storageExecutor}: the server's bounded handler executor, {@code HttpServer.handlerExecutor()}):
     * a request the server handles on its loop reads and writes this node's replica from memory
     * and hands only what would wait to it ({@link LocalReplica}, {@link InternalApiHandler}).
     */
    public static Cluster start(ClusterSettings settings, ClusterNodes joined, StorageEngine engine, HybridLogicalClock clock,
                                Executor handlerExecutor, Executor storageExecutor, ReplicaCallListener calls) throws StoreException {
        return start(settings, joined, null, engine, clock, handlerExecutor, storageExecutor, calls, null);
    }

    /**
     * As above, as a node process starts it. {@code lastKnown} is the newest metadata the node knew
     * ({@link LastKnownMetadataFile}, null for none: a new node, or one that joined and was answered
     * with the metadata of now), which it routes by from the start, before any background work or
     * request, rather than by its {@code --cluster} list until its member of the metadata group has
     * loaded. With the default transport ({@link InterNodeClient#DIRECT}) the connections to the
     * peers live on {@code peerLoops} (the node's server loops, {@code HttpServer.loopGroup()}), so
     * that a request handled on a loop reaches its replicas and hears back on the same thread; null
     * gives the transport a loop of its own.
     */
    public static Cluster start(ClusterSettings settings, ClusterNodes joined, ClusterMetadata lastKnown, StorageEngine engine,
                                HybridLogicalClock clock, Executor handlerExecutor, Executor storageExecutor,
                                ReplicaCallListener calls, EventLoopGroup peerLoops) throws StoreException {
        Cluster cluster = new Cluster(settings, joined, engine, clock, handlerExecutor, storageExecutor, calls, peerLoops);
        if (lastKnown != null && cluster.knownMetadata.offer(lastKnown)) {
            LOG.info("routing by the last cluster metadata this node knew, epoch {}, until its metadata group has loaded",
                    lastKnown.epoch());
        }
        cluster.peerProbe.start();
        cluster.clockCheck.start();
        try {
            cluster.clockCheck.awaitConfirmed(settings.replicaTimeout().plusMillis(500));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cluster.hintedHandoff.start();
        cluster.antiEntropy.start();
        cluster.tombstones.start();
        return cluster;
    }

    public ClusterNodes topology() {
        return topology;
    }

    /**
     * Starts this node's part of the cluster metadata's Raft group, its calls carried on the internal
     * plane with the same proof of the cluster secret as every internal request. Returns without
     * waiting for a leader. The group's replication factor, once this node applied it, is the one
     * placement follows ({@link #replicationFactor()}); a new group is initialised with the configured one.
     * A node that joined starts its server outside the group ({@link MetadataGroup#startJoined}) and
     * goes on following the metadata through members ({@link #followMetadataRemotely}) until the
     * leader has added it and its server has applied the log. Call once, after {@link #start}, from
     * any thread; {@link #close} stops it, and waits for a start under way.
     *
     * @throws java.io.IOException   when its directory cannot be made or its stored state not read
     * @throws IllegalStateException when it was started already, or the cluster is closed
     */
    public MetadataGroup startMetadata(MetadataSettings settings)
            throws java.io.IOException {
        synchronized (metadataLock) {
            if (closed) {
                throw new IllegalStateException("the cluster is closed");
            }
            if (metadata != null) {
                throw new IllegalStateException("the metadata group runs already");
            }
            ownershipCleanups.attach(settings.directory().resolve(SettledOwnershipFile.NAME));
            Path directory = settings.directory();
            knownMetadata.listen(known -> storeLastKnown(directory, known));
            storeLastKnown(directory, knownMetadata.current());
            RaftEndpoint endpoint = new RaftEndpoint();
            RaftPeerCalls calls = new RaftPeerCalls(peers, auth,
                    settings.callTimeout(), clientExecutor);
            MetadataGroup group = joinedCluster
                    ? MetadataGroup.startJoined(settings, topology.all(), topology.self(), calls, endpoint, knownMetadata::offer)
                    : MetadataGroup.start(settings, topology.all(), topology.self(), calls, endpoint, replicationFactor.current(),
                            knownMetadata::offer);
            if (!joinedCluster) {
                catchUp.attach(group::readForCatchUp); // a joined node's reader picks its source: followMetadataRemotely
            }
            if (internalHandler != null) {
                internalHandler.mountMetadata(endpoint, new MetadataAdminEndpoint(group, topology.self()));
            }
            this.metadata = group;
            return group;
        }
    }

    /**
     * Keeps {@code metadata} as the last known ({@link LastKnownMetadataFile}); on the offering
     * thread, once per new epoch (a membership change or a factor's), so the write is rare.
     */
    private static void storeLastKnown(Path directory, ClusterMetadata metadata) {
        if (!metadata.initialised()) {
            return;
        }
        try {
            LastKnownMetadataFile.write(directory, metadata);
        } catch (java.io.IOException e) {
            LOG.warn("cannot store the cluster metadata of epoch {} under {} ({}); started again, this node routes by an "
                    + "older one until its metadata group has loaded", metadata.epoch(), directory, e.getMessage());
        }
    }

    /**
     * For a node that joined: follows the metadata by reading it through the group's members
     * ({@link MembershipCalls#read}), every {@code interval} and whenever a peer names a newer
     * epoch, until its own metadata server is in the group and has applied what it knows; from then
     * on its server's log is what it follows, and a catch-up reads through the leader. Call once,
     * after {@link #start}.
     */
    public void followMetadataRemotely(Duration interval) {
        MembershipCalls calls = membershipCalls();
        catchUp.attach(() -> ownGroupCaughtUp() ? metadata.readForCatchUp() : calls.read());
        metadataPoll.scheduleWithFixedDelay(() -> {
            if (ownGroupCaughtUp()) {
                return;
            }
            calls.read().thenAccept(knownMetadata::offer).exceptionally(failure -> {
                LOG.debug("reading the cluster metadata through its members failed: {}", failure.toString());
                return null;
            });
        }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether this node's own metadata server is a member of the group and has applied the newest metadata known here. */
    private boolean ownGroupCaughtUp() {
        MetadataGroup group = metadata;
        return group != null && group.inGroup() && group.metadata().epoch() >= knownMetadata.epoch();
    }

    /**
     * Serves this node's membership steps: its decommission ({@code ringkv decommission}), and its
     * join when {@code joining} (the node was started with {@code --join} and the metadata names it
     * joining). Call once, after the metadata is followed ({@link #startMetadata} or
     * {@link #followMetadataRemotely}).
     *
     * @param drainDelay how long a leaving node says so on {@code /v0/status} before it leaves
     * @param onLeft     run once this node has left (the node stops)
     */
    public void startMembership(Duration drainDelay, Runnable onLeft, boolean joining) {
        MembershipCalls calls = membershipCalls();
        Decommission leaving = new Decommission(calls, topology, knownMetadata, cleanup, drainDelay, onLeft,
                System::currentTimeMillis, this::votes);
        JoinProcedure join = joining ? new JoinProcedure(calls, topology, knownMetadata, System::currentTimeMillis).start() : null;
        this.decommission = leaving;
        this.join = join;
        if (internalHandler != null) {
            internalHandler.mountMembership(new MembershipEndpoint(leaving, () -> Optional.ofNullable(this.join),
                    this::membershipProgress, clientExecutor, System::currentTimeMillis));
        }
        knownMetadata.listen(leaving::resumeIfLeaving);
        leaving.resumeIfLeaving(knownMetadata.current());
    }

    /**
     * Whether this node holds a vote in the metadata group, as its own server knows the
     * configuration; false when it runs no server (its metadata group did not start).
     */
    private boolean votes() {
        MetadataGroup group = metadata;
        return group != null && group.votes();
    }

    /** This node's own membership step: its decommission once begun, else its join, else none. */
    public MembershipProgress membershipProgress() {
        Decommission leaving = decommission;
        if (leaving != null && !leaving.progress().step().equals("none")) {
            return leaving.progress();
        }
        JoinProcedure joining = join;
        return joining != null ? joining.progress() : MembershipProgress.NONE;
    }

    /** This node's join in progress, or empty (not joining, or the join is over). */
    public Optional<JoinProcedure> join() {
        return Optional.ofNullable(join);
    }

    /** This node's decommission; empty until {@link #startMembership}. */
    public Optional<Decommission> decommission() {
        return Optional.ofNullable(decommission);
    }

    private MembershipCalls membershipCalls() {
        return new MembershipCalls(new SignedCalls(peers, auth, knownMetadata::epoch, clientExecutor), topology);
    }

    /** This node's part of the metadata group; empty until {@link #startMetadata}. */
    public Optional<MetadataGroup> metadata() {
        return Optional.ofNullable(metadata);
    }

    /**
     * The newest cluster metadata this node knows (applied by its replica of the log, or read
     * from the leader while catching up): what placement follows and internal requests carry.
     */
    public KnownMetadata knownMetadata() {
        return knownMetadata;
    }

    /** Internal requests held or refused for their metadata epoch, and catch-ups (metrics). */
    public EpochGate epochGate() {
        return epochGate;
    }

    /** Conditional writes: a compare-and-set per key among its replicas. */
    public CompareAndSet compareAndSet() {
        return compareAndSet;
    }

    public Coordinator coordinator() {
        return coordinator;
    }

    /**
     * How many nodes own each key: the configured value until this node's metadata replica applied
     * one, then the metadata's. The default {@code replicas} is a majority of it.
     */
    public ReplicationFactor replicationFactor() {
        return replicationFactor;
    }

    /** This node's clock against its peers', for the node's status. */
    public ClockSkew clockSkew() {
        return clockSkew;
    }

    /** Signs of peers routing with another node list, for the node's status. */
    public TopologyWatch topologyWatch() {
        return topologyWatch;
    }

    /** Mount for every path under {@link InternalProtocol#PREFIX}; null for a one-node cluster, which serves none. */
    public InternalApiHandler internalHandler() {
        return internalHandler;
    }

    /** Each peer up, down or unknown as this node saw it, and since when. */
    public PeerHealth peerHealth() {
        return peerHealth;
    }

    public ClusterRange range() {
        return range;
    }

    /** Each node's copy of a key, read without repairing anything (for an operator's lookup). */
    public KeyReplicas keyReplicas() {
        return keyReplicas;
    }

    /**
     * GETs {@code path} from a node's public plane (its {@code /v0/status}, {@code /metrics}) over
     * the inter-node client, unsigned: what any client of that node may read, so internal paths
     * are refused here. Completes exceptionally when the node refuses, or does not answer within
     * {@code timeout}; the body is read whole, so ask only for small answers.
     *
     * @param path starts with {@code /}, may carry a query
     */
    public CompletableFuture<HttpResponse<byte[]>> getPublic(ClusterNode node, String path, Duration timeout) {
        return getPublic(node, path, timeout, java.util.Map.of());
    }

    /**
     * As {@link #getPublic(ClusterNode, String, Duration)}, with these header fields: e.g. a node's
     * proof that it holds the cluster secret, for a peer whose admin pages need a credential.
     */
    public CompletableFuture<HttpResponse<byte[]>> getPublic(ClusterNode node, String path, Duration timeout,
                                                             java.util.Map<String, String> headers) {
        if (!path.startsWith("/") || path.startsWith(InternalProtocol.PREFIX)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("not a public path: " + path));
        }
        if (!topology.all().contains(node)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("not a node of this cluster: " + node.id()));
        }
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.id() + path)).timeout(timeout).GET();
            headers.forEach(request::header);
            return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (RuntimeException e) { // a malformed path, a client already closed
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The inter-node client's open connections and the requests in flight on them, per peer
     * origin, read now (for the node's metrics); empty with the JDK's client, which does not tell.
     */
    public Optional<ClientStats> interNodeClientStats() {
        return peers.stats();
    }

    /**
     * The most body bytes a whole answer from a peer may have: a record as large as the peers take
     * (their {@code --max-body}), with room for a batch's framing, and never less than 64 MiB.
     */
    static int answerBytesMax(long peerBodyBytesMax) {
        return (int) Math.min(Integer.MAX_VALUE - 8, Math.max(64L << 20, 2 * peerBodyBytesMax));
    }

    /** Per peer, what this node's batches of replica calls to it carried; empty with batching off (metrics). */
    public java.util.List<PeerBatches> peerBatches() {
        java.util.List<PeerBatches> all = new java.util.ArrayList<>();
        for (ClusterNode peer : topology.others()) {
            if (coordinator.replica(peer) instanceof RemoteReplica remote) {
                remote.batches().ifPresent(all::add);
            }
        }
        return all;
    }

    /** Peers' answers refused for want of a valid proof of the cluster secret, per peer id (metrics). */
    public java.util.Map<String, Long> rejectedAnswers() {
        return client.rejectedAnswers();
    }

    /** Hinted handoff: hints waiting per target, and what was stored, replayed and dropped. */
    public HintedHandoff hintedHandoff() {
        return hintedHandoff;
    }

    public TombstoneCollector tombstones() {
        return tombstones;
    }

    /** The run of {@code ringkv cleanup} or of a membership hand-over in progress on this node, or the last one. */
    public CleanupStatus cleanupStatus() {
        return cleanup.status();
    }

    public AntiEntropy antiEntropy() {
        return antiEntropy;
    }

    /** Stops hint replay and anti-entropy, closes the inter-node client (in-flight requests fail) and stops its threads. */
    @Override
    public void close() {
        synchronized (metadataLock) {
            closed = true;
            if (metadata != null) {
                metadata.close(); // before the HTTP client its calls use
            }
        }
        metadataPoll.shutdownNow();
        if (join != null) {
            join.close();
        }
        if (decommission != null) {
            decommission.close();
        }
        peerProbe.close();
        clockCheck.close();
        hintedHandoff.close();
        antiEntropy.close();
        cleanup.close();
        tombstones.close();
        peers.close();
        http.shutdownNow();
        clientExecutor.shutdownNow();
        try {
            if (!clientExecutor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("inter-node client threads still running {} s after close", CLOSE_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
