package io.ringkv.cluster.meta;

import io.ringkv.cluster.ClusterNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's part of the cluster metadata's Raft group: a Ratis server with the
 * {@link MetadataStateMachine}, its log and snapshots under {@link MetadataSettings#directory()},
 * talking to the other members over the internal plane ({@link InternalPlaneRpcType}), and a Ratis
 * client to submit commands and read linearizably.
 *
 * <p>The group is formed on first start from the cluster's node list: voters are the first
 * {@link MetadataSettings#voters()} members by id (the same choice on every node, whatever order
 * its list has), the others listeners. A node that restarts recovers the group from its directory.
 * Whichever server first becomes leader of a new group submits {@link MetadataCommand.Initialize}
 * (every member {@code normal}, epoch 1); a second one is refused by the state machine.
 *
 * <p>A node that joined a running cluster ({@link #startJoined}) starts its server as a listener
 * of a provisional configuration (the members it knows, itself listening) and waits, {@code outside}
 * the group, until the leader adds it; its own directory holds the real configuration from then
 * on. After that the group's configuration follows the metadata: the leader's
 * {@link VoterReconciler} changes it one step at a time as {@link VoterRule} says.
 *
 * <p>Ratis 3.2.2 turns a listener that a configuration gives a vote into a follower in place, but
 * not the other way: a voter made a listener keeps its voter's timers and shuts itself down at its
 * first election timeout. So when the committed configuration and this server's role disagree,
 * this node restarts its server from its directory (a second or so, nothing lost), which then
 * starts in the role the configuration gives it. That happens to a voter made a listener; the
 * other direction stays checked too, should Ratis leave a listener with a vote as 3.2.1 did.
 *
 * <p>Nothing on the data path waits for this group: {@link #start} returns before any election,
 * and {@link #metadata()} answers from this replica's last applied state, leader or not.
 *
 * <p>Threading: thread-safe; Ratis runs its own threads (election, log appenders, the state
 * machine updater), which {@link #close} stops. The role checks, the restarts and the reconciler run
 * on one thread of this object's ({@code ringkv-metadata-conf}); the server is swapped under a
 * lock that {@link #close} takes too.
 */
public final class MetadataGroup implements AutoCloseable {
    /** The most a log append batch or a snapshot chunk carries ({@link #properties}: Ratis's appender buffer and chunk size). */
    private static final SizeInBytes RAFT_BATCH_BYTES = SizeInBytes.valueOf("256KB");

    /**
     * The largest Raft call body this node takes ({@code POST /internal/v0/raft/OP}, answered 413
     * at its head when it announces more): four times the largest append batch or snapshot chunk
     * the group sends, room for the protobuf's framing and an entry that alone passes the batch
     * limit; metadata entries are a few hundred bytes.
     */
    public static final int RAFT_MESSAGE_BYTES_MAX = 4 * RAFT_BATCH_BYTES.getSizeInt();

    private static final Logger LOG = LoggerFactory.getLogger(MetadataGroup.class);
    /** The one group of a ringkv cluster; a fixed id, so every node names the same group. */
    static final RaftGroupId GROUP_ID = RaftGroupId.valueOf(
            UUID.nameUUIDFromBytes("ringkv-cluster-metadata".getBytes(StandardCharsets.UTF_8)));
    /** Attempts of the client before a command or read gives up, {@link #CLIENT_RETRY_SLEEP} apart (about 10 s). */
    private static final int CLIENT_ATTEMPTS = 50;
    private static final TimeDuration CLIENT_RETRY_SLEEP = TimeDuration.valueOf(200, TimeUnit.MILLISECONDS);
    /**
     * Attempts of the catch-up reads' client ({@link #readForCatchUp}), {@link #CATCH_UP_RETRY_SLEEP}
     * apart (about a second): a request waits for such a read at most 2 s, and a read that keeps
     * failing while there is no leader must end soon, so that the next one starts once there is.
     */
    private static final int CATCH_UP_ATTEMPTS = 10;
    private static final TimeDuration CATCH_UP_RETRY_SLEEP = TimeDuration.valueOf(100, TimeUnit.MILLISECONDS);

    /** Call ids of the configuration requests this node's server is handed in process. */
    private static final AtomicLong CALL_IDS = new AtomicLong();
    /** Changes queued at most behind the one being submitted; more are refused at once. */
    private static final int SUBMITS_QUEUED_MAX = 64;
    /**
     * How often the conf thread checks this server's role against the configuration and, on the
     * leader, the configuration against the metadata: a backstop, since every applied entry and
     * every configuration change asks for the same check at once.
     */
    static final Duration CONF_CHECK_INTERVAL = Duration.ofSeconds(2);
    /** A server that stopped by itself (not by {@link #close}) is started again at most this often. */
    private static final Duration DEAD_SERVER_RESTART_PAUSE = Duration.ofSeconds(30);

    /** Submits changes one at a time through the blocking client ({@link #submit}). */
    private final java.util.concurrent.ThreadPoolExecutor submitter = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
            TimeUnit.MILLISECONDS, new java.util.concurrent.ArrayBlockingQueue<>(SUBMITS_QUEUED_MAX), task -> {
                Thread thread = new Thread(task, "ringkv-metadata-submit");
                thread.setDaemon(true);
                return thread;
            });
    /** Runs {@link #check}: the role repair and the reconciler, one at a time. */
    private final ScheduledExecutorService confThread = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "ringkv-metadata-conf");
        thread.setDaemon(true);
        return thread;
    });
    /** A check is queued on {@link #confThread} already: triggers that come meanwhile add none. */
    private final AtomicBoolean checkQueued = new AtomicBoolean();
    private final RaftClient client;
    private final RaftClient catchUpClient;
    private final RaftPeerId self;
    private final List<Member> initialMembers;
    private final int initialReplicationFactor;
    /** One Initialize in flight at most from this node (leader-ready and start may both ask). */
    private final AtomicBoolean initializing = new AtomicBoolean();
    /** What a server of this node is built from, each time one starts. */
    private final RaftGroup serverGroup;
    private final RaftProperties properties;
    private final RaftPeerCalls calls;
    private final RaftEndpoint endpoint;
    private final String selfUrl;
    private final Consumer<ClusterMetadata> applied;
    /** Started by a join: outside the group until a configuration from the leader names it. */
    private final boolean joined;
    private final VoterReconciler reconciler;
    /** The newest metadata any of this node's servers applied (a restarted one replays older entries first). */
    private final AtomicReference<ClusterMetadata> latest = new AtomicReference<>(ClusterMetadata.EMPTY);
    /** Guards swapping {@link #replica} against {@link #close}. */
    private final Object serverLock = new Object();
    private volatile Replica replica;
    /** Guarded by {@link #serverLock}. */
    private boolean closed;
    /** When a server last started; read and written on the conf thread. */
    private long lastStartNanos = System.nanoTime();

    /** One running Ratis server of this node and its state machine; a restart makes a new pair. */
    private record Replica(RaftServer server, MetadataStateMachine machine) {
    }

    private MetadataGroup(MetadataSettings settings, RaftGroup serverGroup, RaftGroup clientGroup, RaftPeerCalls calls,
                          RaftEndpoint endpoint, ClusterNode self, List<Member> initialMembers, int initialReplicationFactor,
                          Consumer<ClusterMetadata> applied, boolean joined) {
        this.initialReplicationFactor = initialReplicationFactor;
        this.self = RaftPeerId.valueOf(Member.idOf(self));
        this.selfUrl = self.id();
        this.initialMembers = initialMembers;
        this.serverGroup = serverGroup;
        this.properties = properties(settings);
        this.calls = calls;
        this.endpoint = endpoint;
        this.applied = applied;
        this.joined = joined;
        this.reconciler = new VoterReconciler(this, settings.voters());
        // Each client asks this node's own server first (in process): a follower's answer names the
        // leader and the peers of the configuration it has, whatever the client's group once said.
        this.client = client(clientGroup, CLIENT_ATTEMPTS, CLIENT_RETRY_SLEEP);
        this.catchUpClient = client(clientGroup, CATCH_UP_ATTEMPTS, CATCH_UP_RETRY_SLEEP);
    }

    /** A client of the group that asks this node's own server first, giving up after {@code attempts} {@code sleep} apart. */
    private RaftClient client(RaftGroup group, int attempts, TimeDuration sleep) {
        return RaftClient.newBuilder()
                .setRaftGroup(group)
                .setLeaderId(self)
                .setProperties(properties)
                .setClientRpc(new InternalPlaneClientRpc(calls, self, endpoint))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts, sleep))
                .build();
    }

    /**
     * Starts this node's Raft server as a member of the cluster formed from {@code nodes}; returns
     * without waiting for a leader.
     *
     * @param nodes    every node of the cluster list, self included
     * @param self     this node
     * @param calls    carries Raft calls to peers
     * @param endpoint receives peers' Raft calls (mounted on the internal plane by the caller)
     * @param initialReplicationFactor written into the metadata when this node's leadership initialises
     *                 it (a group initialised already keeps its own)
     * @param applied  told of the metadata after every entry this node applies (on the applier thread)
     * @throws IOException when the directory cannot be made or the stored group cannot be read
     */
    public static MetadataGroup start(MetadataSettings settings, List<ClusterNode> nodes, ClusterNode self,
                                      RaftPeerCalls calls, RaftEndpoint endpoint, int initialReplicationFactor,
                                      Consumer<ClusterMetadata> applied) throws IOException {
        if (initialReplicationFactor < 1 || initialReplicationFactor > nodes.size()) {
            throw new IllegalArgumentException("the replication factor must be in 1.." + nodes.size() + ", got "
                    + initialReplicationFactor);
        }
        List<Member> members = Member.initial(nodes).stream()
                .sorted(Comparator.comparing(Member::id)).toList();
        RaftGroup group = RaftGroup.valueOf(GROUP_ID, peers(members, settings.voters()));
        return started(new MetadataGroup(settings, group, group, calls, endpoint, self, members, initialReplicationFactor,
                applied, false), settings);
    }

    /**
     * Starts this node's Raft server for a node that joined a running cluster: with nothing stored
     * yet, as a listener of a provisional configuration ({@code members}, this node listening),
     * which the leader's configuration replaces once it adds this node; with a stored group, as
     * that group says. It never initialises the metadata.
     *
     * @param members  the members the join's answer named (self included): whom the clients ask first
     * @throws IOException when the directory cannot be made or the stored group cannot be read
     */
    public static MetadataGroup startJoined(MetadataSettings settings, List<ClusterNode> members, ClusterNode self,
                                            RaftPeerCalls calls, RaftEndpoint endpoint,
                                            Consumer<ClusterMetadata> applied) throws IOException {
        String selfId = Member.idOf(self);
        List<RaftPeer> peers = new ArrayList<>();
        for (ClusterNode member : members) {
            String id = Member.idOf(member);
            if (!id.equals(selfId)) {
                peers.add(RaftPeer.newBuilder().setId(id).setAddress(member.id()).setStartupRole(RaftPeerRole.FOLLOWER).build());
            }
        }
        peers.add(RaftPeer.newBuilder().setId(selfId).setAddress(self.id()).setStartupRole(RaftPeerRole.LISTENER).build());
        RaftGroup group = RaftGroup.valueOf(GROUP_ID, peers);
        return started(new MetadataGroup(settings, group, group, calls, endpoint, self, List.of(), 1, applied, true), settings);
    }

    private static MetadataGroup started(MetadataGroup group, MetadataSettings settings) throws IOException {
        try {
            Files.createDirectories(settings.directory());
            synchronized (group.serverLock) {
                group.replica = group.newReplica();
            }
        } catch (IOException | RuntimeException e) {
            group.close();
            throw e;
        }
        if (group.isLeader()) {
            group.initializeIfNew(); // a one-voter group may have become leader before its hook could act
        }
        long interval = CONF_CHECK_INTERVAL.toMillis();
        group.confThread.scheduleWithFixedDelay(group::check, interval, interval, TimeUnit.MILLISECONDS);
        return group;
    }

    /** Builds and starts a server from this node's directory; its state machine reports to this group. */
    private Replica newReplica() throws IOException {
        MetadataStateMachine machine = new MetadataStateMachine(this::leaderReady, this::appliedEntry, this::queueCheck);
        RaftServer server = RaftServer.newBuilder()
                .setServerId(self)
                .setGroup(serverGroup)
                .setStateMachine(machine)
                .setProperties(properties)
                .setParameters(InternalPlaneRpcType.parameters(calls, endpoint, selfUrl))
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            closeQuietly(server);
            throw e;
        }
        lastStartNanos = System.nanoTime();
        return new Replica(server, machine);
    }

    /** On the applier thread: must not block. */
    private void appliedEntry(ClusterMetadata next) {
        ClusterMetadata now = latest.updateAndGet(known -> next.epoch() >= known.epoch() ? next : known);
        if (now == next) {
            applied.accept(next);
        }
        queueCheck();
    }

    /** On a Ratis thread when this server becomes a ready leader: must not block. */
    private void leaderReady() {
        initializeIfNew();
        queueCheck();
    }

    /** Asks the conf thread for a {@link #check} soon; never blocks. */
    private void queueCheck() {
        if (checkQueued.compareAndSet(false, true)) {
            try {
                confThread.execute(this::check);
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                checkQueued.set(false);
            }
        }
    }

    /** On the conf thread: this server's role against the configuration, then (on the leader) the configuration against the metadata. */
    private void check() {
        checkQueued.set(false);
        try {
            repairRole();
            reconciler.reconcile();
        } catch (RuntimeException e) {
            LOG.warn("metadata: checking the group's configuration failed: {}", e.toString());
        }
    }

    /**
     * Restarts this node's server when its role is not the one the committed configuration gives it
     * (Ratis 3.2.2 changes a listener into a voter in place, not a voter into a listener), or when it
     * stopped by itself (a voter made a listener shuts down at an election timeout), at most every
     * {@link #DEAD_SERVER_RESTART_PAUSE} then.
     */
    private void repairRole() {
        Replica now = replica;
        Optional<RaftServer.Division> division = division(now);
        if (division.isEmpty() || !division.get().getInfo().isAlive()) {
            if (now != null && now.machine().failure() == null
                    && System.nanoTime() - lastStartNanos > DEAD_SERVER_RESTART_PAUSE.toNanos()) {
                restart("it stopped");
            }
            return;
        }
        RaftConfiguration conf = division.get().getRaftConf();
        DivisionInfo info = division.get().getInfo();
        if (!conf.getPreviousPeers(RaftPeerRole.FOLLOWER).isEmpty() || conf.getLogEntryIndex() > info.getLastAppliedIndex()) {
            return; // a change under way, or not committed yet: the role to have is not settled
        }
        boolean voter = conf.getPeer(self, RaftPeerRole.FOLLOWER) != null;
        boolean listener = conf.getPeer(self, RaftPeerRole.LISTENER) != null;
        RaftPeerRole role = info.getCurrentRole();
        if (voter && role == RaftPeerRole.LISTENER) {
            restart("the configuration at index " + conf.getLogEntryIndex() + " gives this node a vote");
        } else if (listener && role != RaftPeerRole.LISTENER) {
            restart("the configuration at index " + conf.getLogEntryIndex() + " makes this node a listener");
        }
    }

    /** On the conf thread: closes this node's server and starts a new one from its directory. */
    private void restart(String why) {
        synchronized (serverLock) {
            if (closed) {
                return;
            }
            LOG.info("metadata: restarting this node's Raft server, as {}", why);
            closeQuietly(replica.server());
            try {
                replica = newReplica();
            } catch (IOException | RuntimeException e) {
                lastStartNanos = System.nanoTime();
                LOG.error("metadata: this node's Raft server did not start again ({}); trying again in {} s", e.toString(),
                        DEAD_SERVER_RESTART_PAUSE.toSeconds());
            }
        }
    }

    private static void closeQuietly(RaftServer server) {
        try {
            server.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("closing the metadata server failed: {}", e.toString());
        }
    }

    /** The metadata as of the last entry this node applied: no Raft call, whether or not there is a leader. */
    public ClusterMetadata metadata() {
        return latest.get();
    }

    /** The leader's member id as this node knows it; empty while there is none (or none known). */
    public Optional<String> leader() {
        return info().map(DivisionInfo::getLeaderId).map(RaftPeerId::toString);
    }

    public boolean isLeader() {
        return info().map(DivisionInfo::isLeader).orElse(false);
    }

    /**
     * This node's part in the group now: {@code leader}, {@code follower}, {@code candidate} or
     * {@code listener} (follows the log without a vote); {@code outside} while the configuration
     * this server has does not name it (a node that joined, until the leader adds it; a member
     * removed); empty while its server is not running.
     */
    public Optional<String> role() {
        return division(replica).filter(division -> division.getInfo().isAlive())
                .map(division -> inConf(division) ? division.getInfo().getCurrentRole().name().toLowerCase(java.util.Locale.ROOT)
                        : "outside");
    }

    /** Configuration changes this node asked for while it led that did not complete (a new member that never caught up, say). */
    public long failedConfigurationChanges() {
        return reconciler.failedChanges();
    }

    /** Whether this node's server is a member of the group as its configuration says (not {@code outside}). */
    public boolean inGroup() {
        return role().map(role -> !role.equals("outside")).orElse(false);
    }

    /**
     * Whether this node holds a vote as far as its server knows: a voter of its configuration, or of
     * either side of a change under way. A decommission waits until it holds none.
     */
    public boolean votes() {
        return division(replica).map(division -> division.getRaftConf().getPeer(self, RaftPeerRole.FOLLOWER) != null)
                .orElse(false);
    }

    /**
     * The group's configuration as this node's server has it: the ids of its voters and of its
     * listeners (both sides of a change under way; {@code settled} false then).
     */
    public record Configuration(java.util.Set<String> voters, java.util.Set<String> listeners, boolean settled) {
    }

    /** This node's server's configuration now; empty while its server is not running. */
    public Optional<Configuration> configuration() {
        return division(replica).filter(division -> division.getInfo().isAlive()).map(division -> {
            RaftConfiguration conf = division.getRaftConf();
            return new Configuration(ids(conf, RaftPeerRole.FOLLOWER), ids(conf, RaftPeerRole.LISTENER),
                    conf.getPreviousPeers(RaftPeerRole.FOLLOWER).isEmpty() && conf.getPreviousPeers(RaftPeerRole.LISTENER).isEmpty());
        });
    }

    private static java.util.Set<String> ids(RaftConfiguration conf, RaftPeerRole role) {
        return conf.getAllPeers(role).stream().map(peer -> peer.getId().toString())
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    }

    /** Named by the configuration this server has; a joined node's provisional one (never logged) does not count. */
    private boolean inConf(RaftServer.Division division) {
        RaftConfiguration conf = division.getRaftConf();
        return conf.getPeer(self, RaftPeerRole.FOLLOWER, RaftPeerRole.LISTENER) != null
                && (!joined || conf.getLogEntryIndex() >= 0);
    }

    /** The leader's configuration when it is settled (no change under way, committed and applied), for the reconciler. */
    Optional<RaftConfiguration> settledConfiguration() {
        return division(replica).filter(division -> {
            RaftConfiguration conf = division.getRaftConf();
            return division.getInfo().isLeaderReady() && conf.getPreviousPeers(RaftPeerRole.FOLLOWER).isEmpty()
                    && conf.getPreviousPeers(RaftPeerRole.LISTENER).isEmpty()
                    && conf.getLogEntryIndex() <= division.getInfo().getLastAppliedIndex();
        }).map(RaftServer.Division::getRaftConf);
    }

    /**
     * Asks this node's server, the leader, to change the configuration to {@code conf}; waits for
     * the change to commit, or for {@code timeout}.
     *
     * @throws IOException when the server refuses or fails the change
     */
    void setConfiguration(VoterRule.Conf conf, Duration timeout) throws IOException, InterruptedException, TimeoutException {
        RaftServer server = replica.server();
        SetConfigurationRequest request = new SetConfigurationRequest(ClientId.randomId(), self, GROUP_ID, CALL_IDS.getAndIncrement(),
                raftPeers(conf.voters()), raftPeers(conf.listeners()));
        awaitReply(server.setConfigurationAsync(request), timeout);
    }

    /**
     * On the leader: how long ago (ms) it last heard from each member it sends the log to, by
     * member id, from its own bookkeeping of its followers and listeners; empty when this node does
     * not lead. A member that died shows the time since its death; one whose log appender stopped
     * (see {@link VoterReconciler}), the time since then.
     */
    Map<String, Long> lastHeardMillis() {
        return division(replica).filter(division -> division.getInfo().isLeader())
                .map(division -> division.getInfo().getRoleInfoProto().getLeaderInfo().getFollowerInfoList().stream()
                        .collect(java.util.stream.Collectors.toUnmodifiableMap(follower -> follower.getId().getId().toStringUtf8(),
                                follower -> follower.getLastRpcElapsedTimeMs(), Math::min)))
                .orElse(Map.of());
    }

    /**
     * Asks this node's server, the leader, to hand its leadership to {@code voter}; waits until it
     * has, or for {@code timeout}.
     */
    void transferLeadership(String voter, Duration timeout) throws IOException, InterruptedException, TimeoutException {
        RaftServer server = replica.server();
        TransferLeadershipRequest request = new TransferLeadershipRequest(ClientId.randomId(), self, GROUP_ID,
                CALL_IDS.getAndIncrement(), RaftPeerId.valueOf(voter), timeout.toMillis());
        awaitReply(server.transferLeadershipAsync(request), timeout.plusSeconds(1));
    }

    private static void awaitReply(CompletableFuture<RaftClientReply> reply, Duration timeout)
            throws IOException, InterruptedException, TimeoutException {
        RaftClientReply answer;
        try {
            answer = reply.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        if (!answer.isSuccess()) {
            throw answer.getException() != null ? answer.getException() : new IOException("refused: " + answer);
        }
    }

    private static List<RaftPeer> raftPeers(List<Member> members) {
        return members.stream().map(member -> RaftPeer.newBuilder().setId(member.id()).setAddress(member.url()).build()).toList();
    }

    /** This node's member id (its Raft peer id). */
    public String selfId() {
        return self.toString();
    }

    /** Why this node stopped applying the metadata log (a corrupt entry), or empty. */
    public Optional<String> failure() {
        Replica now = replica;
        String failure = now == null ? "this node's metadata server did not start" : now.machine().failure();
        if (failure == null && info().map(info -> !info.isAlive()).orElse(false)) {
            return Optional.of("this node's metadata server has stopped");
        }
        return Optional.ofNullable(failure);
    }

    /**
     * Submits a command through the leader; completes when it is applied (or refused) with the
     * outcome, or fails after about ten seconds without a majority of voters.
     */
    public CompletableFuture<MetadataCodec.Outcome> submit(MetadataCommand command) {
        // The blocking API on a thread of its own, not the async one: Ratis's ordered async calls share
        // a sliding window that one call failing for want of a leader closes for good, after which
        // every later change through this node would fail at once. Changes are rare and small.
        Message message = Message.valueOf(ByteString.copyFrom(MetadataCodec.encode(command)));
        try {
            return CompletableFuture.supplyAsync(() -> sendThroughStepDowns(message), submitter)
                    .thenApply(reply -> decode(reply, MetadataCodec::decodeOutcome));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IOException("the metadata group is closed, or "
                    + SUBMITS_QUEUED_MAX + " changes wait already", e));
        }
    }

    /**
     * On the submitter thread: sends {@code message} through the blocking client, and again while
     * the leader answers that it is stepping down (it hands its leadership on after losing its
     * vote or after a failed configuration change). Ratis's blocking client gives up on that answer
     * at once, though the command was refused before it reached the log, so sending it again
     * cannot apply it twice; the next leader takes it. At most {@link #CLIENT_ATTEMPTS} times,
     * {@link #CLIENT_RETRY_SLEEP} apart, as long as the client would wait for a leader.
     */
    private RaftClientReply sendThroughStepDowns(Message message) {
        for (int attempt = 1; ; attempt++) {
            try {
                return client.io().send(message);
            } catch (org.apache.ratis.protocol.exceptions.LeaderSteppingDownException e) {
                if (attempt == CLIENT_ATTEMPTS) {
                    throw new CompletionException(e);
                }
                try {
                    CLIENT_RETRY_SLEEP.sleep();
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new CompletionException(e);
                }
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }
    }

    /** The metadata as the leader has it now (a Raft read index), or failed without a majority of voters. */
    public CompletableFuture<ClusterMetadata> readLinearizable() {
        return client.async().sendReadOnlyUnordered(Message.valueOf(ByteString.copyFrom(new byte[] {MetadataStateMachine.QUERY_METADATA})))
                .thenApply(reply -> decode(reply, MetadataCodec::decodeMetadata));
    }

    /**
     * As {@link #readLinearizable}, through a client that gives up after about a second without a
     * leader: what a node catching up with a peer's newer epoch reads ({@code MetadataCatchUp}).
     * Unordered: Ratis's ordered async calls share a sliding window that a call failing for want
     * of a leader closes for good, after which every later call of that client fails at once.
     *
     * <p>Sent to the leader this node knows, which answers from the log it applied, rather than to
     * this node's own server: that one answers a linearizable read only once it has applied the
     * leader's commit index itself, so a member the leader had stopped sending the log to (Ratis
     * 3.2 after a failed configuration change, {@code VoterReconciler}) timed out every read and
     * kept its old epoch for good. Without a known leader, the own server is asked, as before.
     */
    public CompletableFuture<ClusterMetadata> readForCatchUp() {
        Message query = Message.valueOf(ByteString.copyFrom(new byte[] {MetadataStateMachine.QUERY_METADATA}));
        Optional<RaftPeerId> leader = info().map(DivisionInfo::getLeaderId);
        return (leader.isPresent() ? catchUpClient.async().sendReadOnlyUnordered(query, leader.get())
                : catchUpClient.async().sendReadOnlyUnordered(query))
                .thenApply(reply -> decode(reply, MetadataCodec::decodeMetadata));
    }

    @Override
    public void close() {
        confThread.shutdownNow();
        submitter.shutdownNow();
        for (RaftClient each : List.of(client, catchUpClient)) {
            try {
                each.close();
            } catch (IOException e) {
                LOG.warn("closing a metadata client failed: {}", e.toString());
            }
        }
        synchronized (serverLock) {
            closed = true;
            if (replica != null) {
                closeQuietly(replica.server());
            }
        }
    }

    private interface Decoder<T> {
        T decode(byte[] bytes) throws CorruptMetadataException;
    }

    private static <T> T decode(RaftClientReply reply, Decoder<T> decoder) {
        if (!reply.isSuccess()) {
            throw new CompletionException(reply.getException() != null ? reply.getException()
                    : new IOException("the metadata group did not apply the request"));
        }
        try {
            return decoder.decode(reply.getMessage().getContent().toByteArray());
        } catch (CorruptMetadataException e) {
            throw new CompletionException(e);
        }
    }

    /** Runs on a Ratis thread when this server becomes a ready leader: must not block. */
    private void initializeIfNew() {
        if (initialMembers.isEmpty() || metadata().initialised() || !initializing.compareAndSet(false, true)) {
            return;
        }
        int factor = initialReplicationFactor;
        submit(new MetadataCommand.Initialize(initialMembers, factor)).whenComplete((outcome, failure) -> {
            initializing.set(false);
            if (failure != null) {
                LOG.warn("could not initialise the cluster metadata (the next leader will try again): {}", failure.toString());
            } else if (outcome.applied()) {
                LOG.info("cluster metadata initialised: epoch {}, {} members, replication factor {}", outcome.epoch(),
                        initialMembers.size(), factor);
            }
        });
    }

    private Optional<DivisionInfo> info() {
        return division(replica).map(RaftServer.Division::getInfo);
    }

    private static Optional<RaftServer.Division> division(Replica replica) {
        if (replica == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(replica.server().getDivision(GROUP_ID));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The first {@code voters} members by id vote; the others listen. */
    private static List<RaftPeer> peers(List<Member> members, int voters) {
        List<RaftPeer> peers = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            Member member = members.get(i);
            peers.add(RaftPeer.newBuilder().setId(member.id()).setAddress(member.url())
                    .setStartupRole(i < voters ? RaftPeerRole.FOLLOWER : RaftPeerRole.LISTENER).build());
        }
        return peers;
    }

    private static RaftProperties properties(MetadataSettings settings) {
        RaftProperties properties = new RaftProperties();
        RaftConfigKeys.Rpc.setType(properties, InternalPlaneRpcType.INSTANCE);
        RaftServerConfigKeys.setStorageDir(properties, List.of(settings.directory().toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(properties, millis(settings.electionTimeoutMin()));
        RaftServerConfigKeys.Rpc.setTimeoutMax(properties, millis(settings.electionTimeoutMax()));
        RaftServerConfigKeys.Rpc.setRequestTimeout(properties, millis(settings.callTimeout()));
        // After a failed append the leader waits this long before it tries the follower again. Ratis's
        // 25 ms made a leader open 40 connections a second to a follower that is down (each refused
        // at once), which burnt CPU and cycled through ephemeral ports; a heartbeat's interval keeps
        // the retry as prompt as the follower could notice.
        RaftServerConfigKeys.Rpc.setSleepTime(properties, millis(settings.electionTimeoutMin().dividedBy(2)));
        RaftClientConfigKeys.Rpc.setRequestTimeout(properties, millis(settings.callTimeout()));
        // Reads through the leader confirm its leadership first (read index): linearizable.
        RaftServerConfigKeys.Read.setOption(properties, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        // The metadata is a few hundred bytes: small log segments and buffers, not Ratis's defaults
        // (megabytes preallocated per segment, an 8 MiB direct write buffer).
        RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf("1MB"));
        RaftServerConfigKeys.Log.setPreallocatedSize(properties, SizeInBytes.valueOf("64KB"));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(properties, RAFT_BATCH_BYTES);
        RaftServerConfigKeys.Log.setWriteBufferSize(properties, SizeInBytes.valueOf("512KB"));
        RaftServerConfigKeys.Log.Appender.setSnapshotChunkSizeMax(properties, RAFT_BATCH_BYTES);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, 1000L);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
        return properties;
    }

    private static TimeDuration millis(Duration duration) {
        return TimeDuration.valueOf(duration.toMillis(), TimeUnit.MILLISECONDS);
    }
}
