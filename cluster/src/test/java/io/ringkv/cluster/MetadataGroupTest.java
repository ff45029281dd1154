package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.cluster.meta.MetadataCodec;
import io.ringkv.cluster.meta.MetadataCommand;
import io.ringkv.cluster.meta.MetadataGroup;
import io.ringkv.cluster.meta.MetadataSettings;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three in-process nodes, each with its metadata group member, the Raft calls carried on the
 * internal plane over real sockets on 127.0.0.1 and authenticated like every internal request.
 */
class MetadataGroupTest {

    private static final int NODES = 3;
    private static final long WAIT_SECONDS = 30;

    @TempDir
    Path dir;

    private final ExecutorService handlerExecutor = Executors.newFixedThreadPool(2);
    private final List<ServerHarness> servers = new ArrayList<>();
    private final List<Cluster> clusters = new ArrayList<>();
    private final List<MetadataGroup> groups = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    /** Each node's internal plane as its server sees it; a test may put another in front of one. */
    private final List<AtomicReference<HttpHandler>> handlers = new ArrayList<>();

    @AfterEach
    void stopNodes() throws Exception {
        clusters.forEach(Cluster::close);
        for (ServerHarness server : servers) {
            server.close();
        }
        handlerExecutor.shutdownNow();
        assertThat(handlerExecutor.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS), is(true));
    }

    @Test
    void threeServersElectALeaderAndReplicateACommandOverTheInternalPlane() throws Exception {
        startNodes();
        awaitTrue(() -> groups.stream().allMatch(group -> group.metadata().epoch() == 1), "every node at epoch 1");
        awaitTrue(() -> groups.stream().map(group -> group.leader().orElse("?")).distinct().count() == 1
                && groups.getFirst().leader().isPresent(), "one leader known to all");
        ClusterMetadata first = groups.getFirst().metadata();
        assertThat(first.members().size(), is(NODES));
        assertThat(first.members().stream().allMatch(member -> member.state() == MemberState.NORMAL), is(true));
        assertThat(first.replicationFactor(), is(3));
        assertThat(first.members().stream().map(io.ringkv.cluster.meta.Member::url).sorted().toList(),
                equalTo(urls.stream().map(url -> ClusterNode.parse(url).id()).sorted().toList()));

        // Submitted through a node that is not the leader: the Ratis client finds the leader.
        MetadataGroup follower = groups.stream().filter(group -> !group.isLeader()).findFirst().orElseThrow();
        MetadataCodec.Outcome outcome = follower.submit(new MetadataCommand.SetReplicationFactor(2)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(outcome, equalTo(new MetadataCodec.Outcome(true, 2, null)));
        awaitTrue(() -> groups.stream().allMatch(group -> group.metadata().epoch() == 2
                && group.metadata().replicationFactor() == 2), "every node at epoch 2");
        assertThat(follower.readLinearizable().get(WAIT_SECONDS, TimeUnit.SECONDS).epoch(), is(2L));

        MetadataCodec.Outcome refused = follower.submit(new MetadataCommand.SetReplicationFactor(4)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(refused.applied(), is(false));
        assertThat(refused.reason(), containsString("between 1 and the number of members (3)"));
    }

    @Test
    void aStrangerWithoutTheSecretIsRefusedAndChangesNothing() throws Exception {
        startNodes();
        awaitTrue(() -> groups.stream().allMatch(group -> group.metadata().epoch() == 1), "every node at epoch 1");
        MetadataGroup leader = groups.stream().filter(MetadataGroup::isLeader).findFirst().orElseThrow();
        String leaderUrl = urls.get(groups.indexOf(leader));
        byte[] command = ClientProtoUtils.toRaftClientRequestProto(RaftClientRequest.newBuilder()
                .setClientId(ClientId.randomId()).setServerId(RaftPeerId.valueOf(leader.selfId()))
                .setGroupId(groupId()).setCallId(1)
                .setMessage(Message.valueOf(ByteString.copyFrom(MetadataCodec.encode(new MetadataCommand.SetReplicationFactor(1)))))
                .setType(RaftClientRequest.writeRequestType()).build()).toByteArray();
        String target = "/internal/v0/raft/client-request";
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> unsigned = http.send(HttpRequest.newBuilder(URI.create(leaderUrl + target))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(command)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unsigned.statusCode(), is(403));

            InternalAuth stranger = new InternalAuth(ClusterSecret.of("another secret, long enough too"), "http://127.0.0.1:9",
                    ClusterNodes.of(urls, urls.getFirst()).fingerprint(), System::currentTimeMillis);
            HttpResponse<String> wrongSecret = http.send(signed(stranger, leaderUrl, target, command), HttpResponse.BodyHandlers.ofString());
            assertThat(wrongSecret.statusCode(), is(403));

            // The same request signed with the cluster secret does apply: the refusals above were the secret's.
            InternalAuth member = new InternalAuth(TestAuth.SECRET, "http://127.0.0.1:9",
                    ClusterNodes.of(urls, urls.getFirst()).fingerprint(), System::currentTimeMillis);
            assertThat(groups.stream().allMatch(group -> group.metadata().epoch() == 1
                    && group.metadata().replicationFactor() == 3), is(true));
            HttpResponse<String> signedBySecret = http.send(signed(member, leaderUrl, target, command),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(signedBySecret.statusCode(), is(200));
            awaitTrue(() -> leader.metadata().replicationFactor() == 1, "the signed command applied");
        }
    }

    @Test
    void membersBeyondTheVotersFollowTheLogAsListeners() throws Exception {
        startNodes(4);
        awaitTrue(() -> groups.stream().allMatch(group -> group.metadata().epoch() == 1), "every node at epoch 1");
        // Voters are the first three members by id, on every node alike; the fourth listens.
        String last = groups.getFirst().metadata().members().getLast().id();
        MetadataGroup listener = groups.stream().filter(group -> group.selfId().equals(last)).findFirst().orElseThrow();
        assertThat(listener.role().orElseThrow(), is("listener"));
        assertThat(groups.stream().filter(group -> group.role().orElse("").equals("listener")).count(), is(1L));

        MetadataCodec.Outcome outcome = listener.submit(new MetadataCommand.SetReplicationFactor(4)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(outcome.applied(), is(true));
        awaitTrue(() -> groups.stream().allMatch(group -> group.metadata().replicationFactor() == 4), "every node took RF 4");
    }

    /**
     * A member the leader sends no log to (here its plane refuses every append, as a member whose
     * log appender Ratis stopped after a failed configuration change hears none) still learns the
     * newest metadata when it catches up, from the leader. The catch-up read used to go to its own
     * server, which answers a linearizable read only once it has applied the leader's commit index:
     * every read timed out, and the member kept its old epoch for good.
     */
    @Test
    void aMemberThatHearsNoLogStillCatchesUpThroughTheLeader() throws Exception {
        startNodes(4);
        awaitTrue(() -> groups.stream().allMatch(group -> group.metadata().epoch() == 1), "every node at epoch 1");
        String listenerId = groups.getFirst().metadata().members().getLast().id();
        int listenerIndex = -1;
        for (int i = 0; i < groups.size(); i++) {
            listenerIndex = groups.get(i).selfId().equals(listenerId) ? i : listenerIndex;
        }
        MetadataGroup listener = groups.get(listenerIndex);
        awaitTrue(() -> listener.leader().isPresent(), "the listener knows the leader");
        HttpHandler plane = handlers.get(listenerIndex).get();
        handlers.get(listenerIndex).set(request -> request.path().endsWith("/append-entries")
                ? java.util.concurrent.CompletableFuture.completedFuture(io.ringkv.http.server.Response.text(503, "no log for now"))
                : plane.handle(request));

        MetadataGroup voter = groups.stream().filter(group -> group != listener).findFirst().orElseThrow();
        assertThat(voter.submit(new MetadataCommand.SetReplicationFactor(2)).get(WAIT_SECONDS, TimeUnit.SECONDS).applied(), is(true));
        assertThat("the listener applied nothing new", listener.metadata().replicationFactor(), is(3));
        assertThat(listener.readForCatchUp().get(WAIT_SECONDS, TimeUnit.SECONDS).replicationFactor(), is(2));
    }

    private static HttpRequest signed(InternalAuth auth, String url, String target, byte[] body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url + target)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        Map<String, String> fields = auth.sign(ClusterNode.parse(url).id(), "POST", target, Map.of(), body);
        fields.forEach(builder::header);
        return builder.build();
    }

    private static RaftGroupId groupId() {
        return RaftGroupId.valueOf(java.util.UUID.nameUUIDFromBytes("ringkv-cluster-metadata".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private void startNodes() throws Exception {
        startNodes(NODES);
    }

    private void startNodes(int nodes) throws Exception {
        for (int i = 0; i < nodes; i++) {
            AtomicReference<HttpHandler> handler = new AtomicReference<>();
            ServerHarness server = ServerHarness.start(request -> {
                HttpHandler mounted = handler.get();
                if (mounted == null) {
                    return java.util.concurrent.CompletableFuture.completedFuture(
                            io.ringkv.http.server.Response.text(503, "starting"));
                }
                try {
                    return mounted.handle(request);
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            servers.add(server);
            handlers.add(handler);
            urls.add(server.url());
        }
        for (int i = 0; i < nodes; i++) {
            ClusterSettings settings = ClusterSettings.of(urls, urls.get(i)).withSecret(TestAuth.SECRET);
            Cluster cluster = Cluster.start(settings, new InMemoryStorageEngine(), HybridLogicalClock.systemClock(), handlerExecutor);
            clusters.add(cluster);
            handlers.get(i).set(cluster.internalHandler());
            groups.add(cluster.startMetadata(MetadataSettings.defaults(dir.resolve("node" + i))));
        }
    }

    /** Polls until {@code condition} holds; fails after {@link #WAIT_SECONDS} (a bound on hanging, not a timing requirement). */
    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(WAIT_SECONDS).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within " + WAIT_SECONDS + " s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
