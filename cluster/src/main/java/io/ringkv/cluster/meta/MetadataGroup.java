package io.ringkv.cluster.meta;

import io.ringkv.cluster.ClusterNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
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
 * <p>Nothing on the data path waits for this group: {@link #start} returns before any election,
 * and {@link #metadata()} answers from this replica's last applied state, leader or not.
 *
 * <p>Threading: thread-safe; Ratis runs its own threads (election, log appenders, the state
 * machine updater), which {@link #close} stops.
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

    /** Changes queued at most behind the one being submitted; more are refused at once. */
    private static final int SUBMITS_QUEUED_MAX = 64;

    private final RaftServer server;
    /** Submits changes one at a time through the blocking client ({@link #submit}). */
    private final java.util.concurrent.ThreadPoolExecutor submitter = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
            TimeUnit.MILLISECONDS, new java.util.concurrent.ArrayBlockingQueue<>(SUBMITS_QUEUED_MAX), task -> {
                Thread thread = new Thread(task, "ringkv-metadata-submit");
                thread.setDaemon(true);
                return thread;
            });
    private final RaftClient client;
    private final RaftClient catchUpClient;
    private final MetadataStateMachine stateMachine;
    private final RaftPeerId self;
    private final List<Member> initialMembers;
    private final int initialReplicationFactor;
    /** One Initialize in flight at most from this node (leader-ready and start may both ask). */
    private final AtomicBoolean initializing = new AtomicBoolean();

    private MetadataGroup(RaftServer server, RaftClient client, RaftClient catchUpClient, MetadataStateMachine stateMachine,
                          RaftPeerId self, List<Member> initialMembers, int initialReplicationFactor) {
        this.initialReplicationFactor = initialReplicationFactor;
        this.server = server;
        this.client = client;
        this.catchUpClient = catchUpClient;
        this.stateMachine = stateMachine;
        this.self = self;
        this.initialMembers = initialMembers;
    }

    /**
     * Starts this node's Raft server; returns without waiting for a leader.
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
                                      java.util.function.Consumer<ClusterMetadata> applied) throws IOException {
        if (initialReplicationFactor < 1 || initialReplicationFactor > nodes.size()) {
            throw new IllegalArgumentException("the replication factor must be in 1.." + nodes.size() + ", got "
                    + initialReplicationFactor);
        }
        List<Member> members = Member.initial(nodes).stream()
                .sorted(Comparator.comparing(Member::id)).toList();
        RaftPeerId selfId = RaftPeerId.valueOf(Member.idOf(self));
        Files.createDirectories(settings.directory());
        RaftProperties properties = properties(settings);
        RaftGroup group = RaftGroup.valueOf(GROUP_ID, peers(members, settings.voters()));
        // The state machine exists before the group it calls back; the hook is set once both do.
        AtomicReference<MetadataGroup> started = new AtomicReference<>();
        MetadataStateMachine stateMachine = new MetadataStateMachine(() -> {
            MetadataGroup running = started.get();
            if (running != null) {
                running.initializeIfNew();
            }
        }, applied);
        RaftServer server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(properties)
                .setParameters(InternalPlaneRpcType.parameters(calls, endpoint, self.id()))
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
        RaftClient client = RaftClient.newBuilder()
                .setRaftGroup(group)
                .setProperties(properties)
                .setClientRpc(new InternalPlaneClientRpc(calls, selfId, endpoint))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(CLIENT_ATTEMPTS, CLIENT_RETRY_SLEEP))
                .build();
        RaftClient catchUpClient = RaftClient.newBuilder()
                .setRaftGroup(group)
                .setProperties(properties)
                .setClientRpc(new InternalPlaneClientRpc(calls, selfId, endpoint))
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(CATCH_UP_ATTEMPTS, CATCH_UP_RETRY_SLEEP))
                .build();
        MetadataGroup metadataGroup = new MetadataGroup(server, client, catchUpClient, stateMachine, selfId, members,
                initialReplicationFactor);
        started.set(metadataGroup);
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            metadataGroup.close();
            throw e;
        }
        if (metadataGroup.isLeader()) {
            metadataGroup.initializeIfNew(); // a one-voter group may have become leader before the hook was set
        }
        return metadataGroup;
    }

    /** The metadata as of the last entry this node applied: no Raft call, whether or not there is a leader. */
    public ClusterMetadata metadata() {
        return stateMachine.metadata();
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
     * {@code listener} (follows the log without a vote); empty while its server is not running.
     */
    public Optional<String> role() {
        return info().map(info -> info.getCurrentRole().name().toLowerCase(java.util.Locale.ROOT));
    }

    /** This node's member id (its Raft peer id). */
    public String selfId() {
        return self.toString();
    }

    /** Why this node stopped applying the metadata log (a corrupt entry), or empty. */
    public Optional<String> failure() {
        String failure = stateMachine.failure();
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
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return client.io().send(message);
                } catch (IOException e) {
                    throw new CompletionException(e);
                }
            }, submitter).thenApply(reply -> decode(reply, MetadataCodec::decodeOutcome));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IOException("the metadata group is closed, or "
                    + SUBMITS_QUEUED_MAX + " changes wait already", e));
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
     */
    public CompletableFuture<ClusterMetadata> readForCatchUp() {
        return catchUpClient.async().sendReadOnlyUnordered(Message.valueOf(ByteString.copyFrom(new byte[] {MetadataStateMachine.QUERY_METADATA})))
                .thenApply(reply -> decode(reply, MetadataCodec::decodeMetadata));
    }

    @Override
    public void close() {
        submitter.shutdownNow();
        for (RaftClient each : List.of(client, catchUpClient)) {
            try {
                each.close();
            } catch (IOException e) {
                LOG.warn("closing a metadata client failed: {}", e.toString());
            }
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("closing the metadata server failed: {}", e.toString());
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
        if (metadata().initialised() || !initializing.compareAndSet(false, true)) {
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
        try {
            return Optional.of(server.getDivision(GROUP_ID).getInfo());
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
