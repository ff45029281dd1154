package io.ringkv.node;

import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ClusterSettings;
import io.ringkv.cluster.CoordinatorSettings;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.ReplicaCallListener;
import io.ringkv.cluster.member.JoinProcedure;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.http.h1.H1Limits;
import io.ringkv.http.server.ExchangeListener;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.http.server.HttpServer;
import io.ringkv.http.server.ServerConfig;
import io.ringkv.node.dashboard.Dashboard;
import io.ringkv.node.dashboard.DashboardApi;
import io.ringkv.node.dashboard.DashboardAssets;
import io.ringkv.node.dashboard.DashboardHosts;
import io.ringkv.node.dashboard.OwnMetrics;
import io.ringkv.node.dashboard.RecentEvents;
import io.ringkv.node.metrics.NodeMetrics;
import io.ringkv.ops.NodeSample;
import io.ringkv.ops.PrometheusText;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.RocksDbStorageEngine;
import io.ringkv.store.StorageEngine;
import io.ringkv.store.StoreConfig;
import io.ringkv.store.StoreException;
import java.io.IOException;
import java.net.BindException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running node: its store, its data layer (local or cluster), its HTTP server.
 *
 * <p>Lifecycle: {@link #start} opens everything or fails with a {@link NodeStartException} that
 * says what to fix, leaving nothing open; {@link #close} stops accepting, lets in-flight requests
 * finish within the grace period, then closes the store. Threading: start/close from one thread.
 */
public final class Node implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Node.class);

    /** This build's version, as {@code /v0/status} and {@code ringkv --version} report it. */
    public static final String VERSION = "0.1.0";

    private final NodeConfig config;
    private static final int COORDINATION_THREADS = 2;
    /**
     * Peers' calls (replica writes and reads, hand-over batches, Raft) may take a quarter of
     * {@code --in-flight-max} more slots than client requests, which {@code --in-flight-max} bounds:
     * under overload a node sheds new client requests at its edge and still serves the replica calls
     * other coordinators admitted already, which a 503 would fail after their cost was paid (or leave
     * to time out as 504). On top of the flag, not carved out of it: the client budget stays what
     * the flag says.
     */
    private static final int IN_FLIGHT_PEER_SHARE = 4;
    /** How often a node outside the metadata group reads the metadata through its members. */
    private static final Duration METADATA_POLL = Duration.ofSeconds(1);

    private final StorageEngine engine;
    private final Cluster cluster;
    private final ExecutorService coordination;
    private final ExecutorService dashboardWork;
    private final HttpServer server;
    private final NodeLifecycle lifecycle;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The machine's clock, or a shifted one in clock fault tests; its watcher thread stops with the node. */
    private final ShiftedWallClock wallClock;

    private Node(NodeConfig config, StorageEngine engine, Cluster cluster, ExecutorService coordination,
                 ExecutorService dashboardWork, HttpServer server, NodeLifecycle lifecycle, ShiftedWallClock wallClock) {
        this.lifecycle = lifecycle;
        this.wallClock = wallClock;
        this.config = config;
        this.engine = engine;
        this.cluster = cluster;
        this.coordination = coordination;
        this.dashboardWork = dashboardWork;
        this.server = server;
    }

    public static Node start(NodeConfig config) throws NodeStartException {
        return start(config, Duration.ZERO);
    }

    /**
     * As {@link #start(NodeConfig)}, with a {@link WarmUp} of at most {@code warmUp} once the port
     * is bound and before the node joins its cluster, when a peer already serves (a node restarted
     * into a running cluster; {@link WarmUp#beforeServing} decides): {@code /v0/status} says
     * {@code starting} ({@code 503}) meanwhile, so nobody sends load to a cold JVM while its peers
     * can answer. A node of a new cluster, or alone, serves at once.
     */
    public static Node start(NodeConfig config, Duration warmUp) throws NodeStartException {
        return start(config, warmUp, () -> log.info("this node left the cluster; it serves nothing of it any more"));
    }

    /**
     * As above; {@code onLeft} runs once this node has left the cluster ({@code ringkv decommission}),
     * on a thread of the decommission (e.g. to stop the process).
     */
    public static Node start(NodeConfig config, Duration warmUp, Runnable onLeft) throws NodeStartException {
        NodeLifecycle lifecycle = new NodeLifecycle();
        NodeMetrics metrics = config.metrics() ? new NodeMetrics() : NodeMetrics.off();
        RecentEvents events = new RecentEvents(System::currentTimeMillis);
        Dashboard dashboard = new Dashboard(DashboardAssets.load(), DashboardHosts.of(config.host(), config.uiAllowedHosts()));
        StorageEngine engine = openStore(config);
        metrics.watch(engine);
        StatusEndpoint status = new StatusEndpoint(lifecycle);
        NodeRouter handler = new NodeRouter(status, new MetricsEndpoint(metrics), dashboard, config.maxBodyBytes());
        AccessControl access = config.tokens() == null ? null : new AccessControl(config.tokens(), handler);
        if (config.tokens() != null) {
            metrics.watch(config.tokens());
        }
        HttpServer server;
        try {
            server = startServer(config, access == null ? handler : access, both(metrics.requestListener(), events.serverErrors()));
        } catch (NodeStartException e) {
            engine.close();
            throw e;
        }
        metrics.watch(server);
        ExecutorService coordination = coordinationExecutor();
        ExecutorService dashboardWork = dashboardExecutor();
        ShiftedWallClock wallClock = ShiftedWallClock.of(config.clockShift());
        try {
            String self = config.scheme() + "://" + config.host() + ":" + server.port();
            status.nodeUrl(self);
            if (config.clusterUrls().size() > 1 || config.joinUrl() != null) {
                ClusterAddressFile.claim(config.dataDir(), io.ringkv.cluster.ClusterNode.parse(self));
            }
            // What this node last knew: a node of the initial list routes by it until its group has loaded;
            // one that joined before starts from it without asking.
            io.ringkv.cluster.meta.ClusterMetadata lastKnown = lastKnownMetadata(config);
            JoinRequest.Joined joined = config.joinUrl() == null ? null : joinedOrJoin(config, self, lastKnown, warmUp);
            boolean warmedUp = joined != null && !joined.stored();
            ClusterSettings settings = joined == null ? clusterSettings(config, self)
                    : clusterSettings(config.withCluster(joined.metadata().active().stream().map(Member::url).toList()), self)
                            .withReplicationFactor(Math.min(joined.metadata().replicationFactor(),
                                    (int) joined.metadata().members().stream().filter(m -> m.state() == MemberState.NORMAL).count()));
            io.ringkv.cluster.ClusterNodes topology = joined == null
                    ? io.ringkv.cluster.ClusterNodes.of(settings.nodeUrls(), settings.selfUrl())
                    : io.ringkv.cluster.ClusterNodes.joined(io.ringkv.cluster.ClusterNode.parse(self), joined.fingerprint(),
                            joined.metadata(), joined.self().index());
            if (!warmedUp) {
                WarmUp.beforeServing(topology, config.interNodeTransport().trust(), warmUp);
            }
            HybridLogicalClock clock = HybridLogicalClock.forNode(wallClock, topology.indexOfSelf(), engine.clockLease());
            Cluster cluster = Cluster.start(settings, joined == null ? null : topology, joined == null ? lastKnown : null, engine,
                    clock, coordination,
                    server.handlerExecutor(),
                    metrics.enabled() ? ReplicaCallListener.both(metrics.replicaCallListener(), events.replicaCallFailures())
                            : events.replicaCallFailures(),
                    server.loopGroup());
            metrics.watch(cluster);
            cluster.peerHealth().addListener(events.peerChanges());
            if (joined == null) {
                // Not waited for (nor any election): the node serves data whether or not the group runs or has a leader.
                status.metadata(MetadataStatus.startInBackground(cluster, config,
                        () -> cluster.startMembership(config.drainDelay(), onLeft, false)));
            } else {
                // A node that joined reads the metadata through its members until its own metadata
                // server, started outside the group, has been added by the leader and caught up.
                cluster.knownMetadata().offer(joined.metadata());
                cluster.followMetadataRemotely(METADATA_POLL);
                cluster.startMembership(config.drainDelay(), onLeft, true);
                status.metadata(MetadataStatus.startInBackground(cluster, config, () -> { }));
            }
            status.cluster(cluster);
            PeerSignature peers = config.secret() == null ? null : new PeerSignature(new InternalAuth(config.secret(),
                    cluster.topology().self().id(), cluster.topology().fingerprint(), wallClock));
            if (access != null && peers != null) {
                access.peers(peers);
            }
            dashboard.ready(dashboardApi(cluster, lifecycle, status, metrics, events, dashboardWork, peers));
            // The JDK's client may resolve a peer's name on the thread that sends to it: with it, a
            // coordinator must not run on an event loop.
            handler.ready(new PublicApi(new ClusterEntityService(cluster, engine, config.rangeStreamsMax()),
                    config.conditionalWrites()), cluster.internalHandler(),
                    config.interNodeTransport().client() != io.ringkv.cluster.InterNodeClient.JDK);
            lifecycle.serving();
            log.info("node {} serving (version {}, {} node(s) in the cluster, data {}, started in {} ms); dashboard at {}{}/",
                    self, VERSION, cluster.topology().size(), config.dataDir().toAbsolutePath(), lifecycle.uptimeMillis(),
                    self, Dashboard.ROOT);
            if (config.tokens() != null && config.tokens().size() == 0) {
                log.warn("the token file {} has no entries: every request but GET /v0/status is refused until one is added",
                        config.tokens().file().toAbsolutePath());
            } else if (config.tokens() != null) {
                log.info("access control on: {} token and cert: line(s) from {}; GET /v0/status and the internal plane need none",
                        config.tokens().size(), config.tokens().file().toAbsolutePath());
            }
            if (!metrics.enabled()) {
                log.info("metrics are off (--metrics off): nothing is recorded and /metrics answers 404");
            }
            return new Node(config, engine, cluster, coordination, dashboardWork, server, lifecycle, wallClock);
        } catch (RuntimeException | StoreException | NodeStartException e) {
            wallClock.close();
            server.close();
            coordination.shutdownNow();
            dashboardWork.shutdownNow();
            engine.close();
            throw e instanceof NodeStartException start ? start : new NodeStartException("cannot join the cluster: " + e.getMessage(), e);
        }
    }

    /**
     * The dashboard's data: this node read in process, its peers over the inter-node client, with
     * reads signed by {@code peers} (null for a node without a cluster secret, which has no peers).
     */
    private static DashboardApi dashboardApi(Cluster cluster, NodeLifecycle lifecycle, StatusEndpoint status,
                                             NodeMetrics metrics, RecentEvents events, ExecutorService work,
                                             PeerSignature peers) {
        String self = cluster.topology().self().id();
        return DashboardApi.of(cluster, () -> {
            NodeLifecycle.Phase phase = lifecycle.phase();
            // Without metrics the dashboard shows this node's health but no rates, as for a peer whose /metrics is off.
            // With them it reads the registry: no text written to be parsed back in the same process.
            PrometheusText own = metrics.enabled() ? OwnMetrics.of(metrics.snapshot()) : null;
            return new NodeSample(self, phase == NodeLifecycle.Phase.SERVING ? 200 : 503, status.json(phase), own,
                    System.nanoTime());
        }, events, work, peers == null ? (receiver, target) -> java.util.Map.of() : peers::sign, PublicApi.KEY_BYTES_MAX);
    }

    /** Both listeners, in order; allocates nothing per call. Only {@code second} when {@code first} tells nobody (metrics off). */
    private static ExchangeListener both(ExchangeListener first, ExchangeListener second) {
        if (first == ExchangeListener.NONE) {
            return second;
        }
        return (request, status, elapsedNanos) -> {
            first.onResponse(request, status, elapsedNanos);
            second.onResponse(request, status, elapsedNanos);
        };
    }

    /**
     * Parses peers' metrics and builds the dashboard's snapshots: work that exists only while a
     * dashboard is open (its thread starts with the first), kept off the inter-node client's network
     * thread and the coordination threads, whose delays would be the replicated path's.
     */
    private static ExecutorService dashboardExecutor() {
        return Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "ringkv-dashboard");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Runs coordinator deadline expiries and the continuations they trigger: short, non-blocking
     * work, so two threads suffice whatever the load.
     */
    private static ExecutorService coordinationExecutor() {
        AtomicInteger ids = new AtomicInteger();
        return Executors.newFixedThreadPool(COORDINATION_THREADS, task -> {
            Thread thread = new Thread(task, "ringkv-coordination-" + ids.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * The node's own URL as it appears in the cluster list; a node without a list is alone. The
     * peers are taken to share this node's {@code --max-body}: internal batches stay within it.
     */
    private static ClusterSettings clusterSettings(NodeConfig config, String self) {
        List<String> urls = config.clusterUrls().size() > 1 ? config.clusterUrls() : List.of(self);
        ClusterSettings defaults = ClusterSettings.of(urls, self);
        return new ClusterSettings(urls, self, config.replicaTimeout(), CoordinatorSettings.deadlineFor(config.replicaTimeout()),
                defaults.clientThreads(), config.secret(),
                config.interNodeTransport().withPeerBodyBytesMax(config.maxBodyBytes()), config.hints(),
                config.antiEntropy(), config.tombstoneGrace(), config.maxClockOffset(), config.readSpareDelay(),
                config.replicationFactor() == 0 ? defaults.replicationFactor() : config.replicationFactor(),
                config.streamBytesPerSecond());
    }

    /**
     * A node started with {@code --join}: what it starts from. One that joined before starts from
     * its data directory ({@link JoinedBefore}), whether or not a member answers; any other warms
     * up first ({@link WarmUp}, when the members serve), then asks a member to add it
     * ({@link JoinRequest}) and records the cluster it joined. The order matters: from the moment
     * the metadata names the node {@code joining}, coordinators send it the writes of the keys it
     * will own, and a node warming up fails them (each then counted against its write's quorum
     * and hinted); before, a joining node warmed up for half a minute in that state.
     */
    private static JoinRequest.Joined joinedOrJoin(NodeConfig config, String self, io.ringkv.cluster.meta.ClusterMetadata lastKnown,
                                                   Duration warmUp) throws NodeStartException {
        java.nio.file.Path directory = config.dataDir().resolve(MetadataStatus.DIRECTORY);
        java.util.Optional<JoinRequest.Joined> before = JoinedBefore.read(directory, io.ringkv.cluster.ClusterNode.parse(self), lastKnown);
        if (before.isPresent()) {
            log.info("this node joined the cluster before ({} at epoch {}): it starts from its data directory, without asking {}",
                    before.get().self().state().label(), before.get().metadata().epoch(), config.joinUrl());
            return before.get();
        }
        WarmUp.beforeServing(JoinRequest.members(config.joinUrl()), config.interNodeTransport().trust(), warmUp);
        JoinRequest.Joined joined = JoinRequest.ask(config.joinUrl(), self, config.replaceUrl(), config.secret(),
                config.interNodeTransport().trust());
        JoinedBefore.record(directory, joined.fingerprint());
        return joined;
    }

    /**
     * The newest cluster metadata this node knew before it stopped ({@code DATA/meta}), or null: none
     * (a new node), or one that does not read back, which is logged and then routed around as if
     * there were none (the metadata group brings the node up to date either way).
     */
    private static io.ringkv.cluster.meta.ClusterMetadata lastKnownMetadata(NodeConfig config) {
        java.nio.file.Path directory = config.dataDir().resolve(MetadataStatus.DIRECTORY);
        try {
            return io.ringkv.cluster.meta.LastKnownMetadataFile.read(directory).orElse(null);
        } catch (java.io.IOException e) {
            log.warn("cannot read the last cluster metadata this node knew under {} ({}); it routes by its --cluster list "
                    + "until its metadata group has loaded", directory.toAbsolutePath(), e.getMessage());
            return null;
        }
    }

    private static StorageEngine openStore(NodeConfig config) throws NodeStartException {
        try {
            return RocksDbStorageEngine.open(config.dataDir(), StoreConfig.defaults().withDurability(config.durability()));
        } catch (StoreException e) {
            throw new NodeStartException("cannot open data directory " + config.dataDir().toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    /** The in-flight slots only peers' calls take, on top of {@code --in-flight-max}. */
    private static int peerSlots(NodeConfig config) {
        return Math.max(1, config.inFlightMax() / IN_FLIGHT_PEER_SHARE);
    }

    private static HttpServer startServer(NodeConfig config, HttpHandler api, ExchangeListener listener) throws NodeStartException {
        H1Limits defaults = H1Limits.defaults();
        H1Limits limits = new H1Limits(defaults.requestLineBytesMax(), defaults.headerBlockBytesMax(),
                defaults.headerCountMax(), io.ringkv.cluster.InternalProtocol.serverBodyBytesMax(config.maxBodyBytes()));
        ServerConfig serverConfig = ServerConfig.builder()
                .host(config.host())
                .port(config.port())
                .h1Limits(limits)
                .inFlightMax(config.inFlightMax() + peerSlots(config))
                .inFlightReserve(peerSlots(config))
                .connectionsMax(config.connectionsMax())
                .idleTimeout(config.idleTimeout())
                .headerReadTimeout(config.headerTimeout())
                .handlerThreads(config.handlerThreads())
                .shutdownGrace(config.shutdownGrace())
                .tls(config.tls())
                .build();
        try {
            return HttpServer.start(serverConfig, api, Node::exitOnLoopFailure, listener);
        } catch (BindException e) {
            throw new NodeStartException("cannot listen on " + config.host() + ":" + config.port()
                    + " (" + e.getMessage() + "): is another process using the port?", e);
        } catch (IOException e) {
            throw new NodeStartException("cannot listen on " + config.host() + ":" + config.port() + ": " + e.getMessage(), e);
        }
    }

    /**
     * An event loop died: part of the connections would land on a loop that serves nothing, so the
     * node stops, loudly, instead of running on half-dead (an orchestrator or `ringkv up` sees the
     * exit). From another thread: the shutdown hooks wait for the server's loops.
     */
    private static void exitOnLoopFailure(Throwable failure) {
        log.error("an event loop died ({}); the node exits with code {}", failure.toString(), EXIT_LOOP_DIED, failure);
        Thread exit = new Thread(() -> System.exit(EXIT_LOOP_DIED), "ringkv-exit");
        exit.setDaemon(false);
        exit.start();
    }

    /** Exit code of a node whose event loop died. */
    static final int EXIT_LOOP_DIED = 70;

    /** The base URL clients use, with the bound port (useful when the config asked for port 0). */
    public String url() {
        return config.scheme() + "://" + config.host() + ":" + server.port();
    }

    public int port() {
        return server.port();
    }

    /** This node's join, when it started with one ({@code serve --join}) and the metadata names it joining. */
    Optional<JoinProcedure> join() {
        return cluster.join();
    }

    /** This node's own join or decommission, as {@code /v0/status} shows it. */
    io.ringkv.cluster.member.MembershipProgress membershipProgress() {
        return cluster.membershipProgress();
    }

    /**
     * Begins this node's decommission, as {@code ringkv decommission} does through its internal
     * call; the {@code onLeft} given to {@link #start} runs once it has left.
     *
     * @throws io.ringkv.cluster.member.MembershipRefusedException when the metadata refuses (not a normal member)
     * @throws IOException when no member of the metadata group took the step
     */
    void decommission() throws IOException, InterruptedException {
        cluster.decommission().orElseThrow(() -> new IllegalStateException("this node serves no membership steps")).begin();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        lifecycle.stopping();
        log.info("node {} stopping after {} s up", url(), lifecycle.uptimeMillis() / 1000);
        boolean interrupted = drain();
        try {
            server.shutdown(config.shutdownGrace());
        } finally {
            cluster.close();
            coordination.shutdownNow();
            dashboardWork.shutdownNow();
            engine.close();
            wallClock.close();
        }
        log.info("node {} stopped", url());
        if (interrupted) {
            Thread.currentThread().interrupt(); // kept for the caller, after a shutdown that must not be cut short
        }
    }

    /**
     * With a drain delay, the node keeps serving for that long while {@code /v0/status} answers
     * 503, so a load balancer polling it stops sending before connections are refused. An
     * interrupt ends the drain early.
     *
     * @return whether the drain was interrupted
     */
    private boolean drain() {
        if (config.drainDelay().isZero() || config.drainDelay().isNegative()) {
            return false;
        }
        log.info("node {} draining for {}: /v0/status answers 503, requests are still served", url(), config.drainDelay());
        try {
            Thread.sleep(config.drainDelay());
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }
}
