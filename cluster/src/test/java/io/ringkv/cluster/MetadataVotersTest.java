package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.LeadershipTransfer;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.cluster.meta.MetadataCodec;
import io.ringkv.cluster.meta.MetadataCommand;
import io.ringkv.cluster.meta.MetadataGroup;
import io.ringkv.cluster.meta.MetadataSettings;
import io.ringkv.http.server.HttpHandler;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metadata group's voters follow membership: three in-process nodes form the group, a fourth
 * joins (its own Raft server, added by the leader), and a voter retires; the Raft calls travel on
 * the internal plane over real sockets on 127.0.0.1.
 */
class MetadataVotersTest {

    private static final long WAIT_SECONDS = 60;

    @TempDir
    Path dir;

    private final ExecutorService handlerExecutor = Executors.newFixedThreadPool(2);
    private final List<ServerHarness> servers = new ArrayList<>();
    private final List<Cluster> clusters = new ArrayList<>();
    private final List<MetadataGroup> groups = new ArrayList<>();
    /** The groups still running. */
    private final List<MetadataGroup> running = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
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
    void aJoinedMemberTakesTheVoteOfARetiredOneAndTheGroupCommitsWithoutIt() throws Exception {
        Set<String> initial = startInitialMembers();

        // A fourth node joins: the metadata names it joining, then its own server starts outside the group.
        String joinerUrl = listen();
        String joinerId = Member.idOf(ClusterNode.parse(joinerUrl));
        MetadataGroup joined = join(joinerUrl, new MetadataCommand.AddMember(
                new Member(joinerId, ClusterNode.parse(joinerUrl).id(), MemberState.JOINING, 0, null)));
        assertThat(awaitLeader().configuration().orElseThrow().voters(), equalTo(initial));
        applied(new MetadataCommand.SetMemberState(joinerId, MemberState.NORMAL));
        // Normal, it still listens: the voters keep their votes while they are normal.
        awaitTrue(() -> joined.metadata().member(joinerId).orElseThrow().state() == MemberState.NORMAL, "the joiner is normal");
        assertThat(awaitLeader().configuration().orElseThrow().voters(), equalTo(initial));

        // The leader itself retires: its vote goes to the joined member, after leadership moved away.
        MetadataGroup retiring = awaitLeader();
        String retiringId = retiring.selfId();
        applied(new MetadataCommand.SetMemberState(retiringId, MemberState.LEAVING));
        Set<String> after = new java.util.HashSet<>(initial);
        after.remove(retiringId);
        after.add(joinerId);
        awaitTrue(() -> leader().filter(leader -> !leader.selfId().equals(retiringId))
                .flatMap(MetadataGroup::configuration).map(conf -> conf.settled() && conf.voters().equals(after)).orElse(false),
                "the joined member votes in place of the leaving one");
        awaitTrue(() -> !retiring.votes() && retiring.role().orElse("").equals("listener"), "the retiring node listens");
        awaitTrue(() -> joined.role().filter(role -> role.equals("follower") || role.equals("leader")).isPresent(),
                "the joined member's server runs as a voter");
        applied(new MetadataCommand.SetMemberState(retiringId, MemberState.LEFT));
        awaitTrue(() -> running.stream().allMatch(group -> group.configuration()
                        .map(conf -> conf.settled() && !conf.voters().contains(retiringId) && !conf.listeners().contains(retiringId))
                        .orElse(false) || group == retiring),
                "no configuration holds the member that left");
        stop(retiring);

        // The joined member leads: a change submitted through an initial member still finds it, though
        // that member's client started out knowing only the three initial members.
        MetadataGroup initialMember = running.stream().filter(group -> group != joined).findFirst().orElseThrow();
        MetadataGroup leading = awaitLeader();
        if (leading != joined) {
            LeadershipTransfer.transfer(leading, joinerId, Duration.ofSeconds(WAIT_SECONDS));
        }
        awaitTrue(joined::isLeader, "the joined member leads");
        MetadataCodec.Outcome throughInitial = initialMember.submit(new MetadataCommand.SetReplicationFactor(3))
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(throughInitial.reason(), throughInitial.applied(), is(true));

        // With the retired node stopped, the group commits; and it elects with the joined member's
        // vote: stop one more initial voter (the leader, if it is not the joined one), and the two
        // that remain (one of them the joined member) still commit.
        applied(new MetadataCommand.SetReplicationFactor(2));
        MetadataGroup second = leader().filter(leader -> leader != joined)
                .orElseGet(() -> running.stream().filter(group -> group != joined).findFirst().orElseThrow());
        stop(second);
        MetadataCodec.Outcome outcome = joined.submit(new MetadataCommand.SetReplicationFactor(1)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(outcome.applied(), is(true));
        awaitTrue(() -> running.stream().allMatch(group -> group.metadata().replicationFactor() == 1), "the survivors applied RF 1");
        for (MetadataGroup group : running) {
            assertThat(group.configuration().orElseThrow().voters(), not(org.hamcrest.Matchers.hasItem(retiringId)));
            assertThat(group.configuration().orElseThrow().listeners(), not(org.hamcrest.Matchers.hasItem(retiringId)));
        }
    }

    @Test
    void aReplacementTakesTheVoteOfADeadVoterAndTheDeadOneLeavesTheGroup() throws Exception {
        Set<String> initial = startInitialMembers();
        // A voter that is not the leader dies.
        MetadataGroup dead = running.stream().filter(group -> !group.isLeader()).findFirst().orElseThrow();
        String deadId = dead.selfId();
        stop(dead);

        String replacementUrl = listen();
        String replacementId = Member.idOf(ClusterNode.parse(replacementUrl));
        MetadataGroup replacement = join(replacementUrl, new MetadataCommand.Replace(deadId,
                new Member(replacementId, ClusterNode.parse(replacementUrl).id(), MemberState.JOINING, 0, null)));
        // Normal: the dead member is left in the same entry; its vote goes to the replacement and it leaves the group.
        applied(new MetadataCommand.SetMemberState(replacementId, MemberState.NORMAL));
        Set<String> after = new java.util.HashSet<>(initial);
        after.remove(deadId);
        after.add(replacementId);
        awaitTrue(() -> running.stream().allMatch(group -> group.configuration()
                        .map(conf -> conf.settled() && conf.voters().equals(after) && conf.listeners().isEmpty()).orElse(false)),
                "every member's configuration: the replacement votes, the dead member is gone");
        awaitTrue(() -> replacement.role().filter(role -> role.equals("follower") || role.equals("leader")).isPresent(),
                "the replacement's server runs as a voter");
        applied(new MetadataCommand.SetReplicationFactor(2));

        // The replacement restarts: its server recovers the group from its directory, a voter at once.
        MetadataGroup restarted = restartJoined(replacement, replacementUrl);
        awaitTrue(() -> restarted.role().filter(role -> role.equals("follower") || role.equals("leader")).isPresent()
                        && restarted.configuration().map(conf -> conf.voters().equals(after)).orElse(false),
                "the restarted replacement votes, by its stored configuration");
        applied(new MetadataCommand.SetReplicationFactor(1));
        awaitTrue(() -> restarted.metadata().replicationFactor() == 1, "the restarted replacement applied RF 1");
    }

    /**
     * A member added to the metadata that never catches up (it died as it joined; here its URL
     * answers every Raft call 503) makes the leader's configuration change fail. Ratis 3.2's
     * leader then stops sending the log to members it had not counted as caught up, the listeners
     * among them: a joined member that listens must still hear the next entries (it did not:
     * {@code MembershipIT} saw a joined member stop applying after an aborted join, and the vote
     * given to it later never reached it).
     */
    @Test
    void aListenerStillHearsTheLogAfterAMemberThatNeverCaughtUpFailedAChange() throws Exception {
        startInitialMembers();
        String listenerUrl = listen();
        String listenerId = Member.idOf(ClusterNode.parse(listenerUrl));
        MetadataGroup listener = join(listenerUrl, new MetadataCommand.AddMember(
                new Member(listenerId, ClusterNode.parse(listenerUrl).id(), MemberState.JOINING, 0, null)));
        applied(new MetadataCommand.SetMemberState(listenerId, MemberState.NORMAL));

        String deadUrl = listen(); // answers 503 to every call: no Raft server behind it
        String deadId = Member.idOf(ClusterNode.parse(deadUrl));
        applied(new MetadataCommand.AddMember(new Member(deadId, ClusterNode.parse(deadUrl).id(), MemberState.JOINING, 0, null)));
        awaitTrue(() -> running.stream().mapToLong(MetadataGroup::failedConfigurationChanges).sum() > 0,
                "the leader's change adding the member that never answers failed");
        applied(new MetadataCommand.SetMemberState(deadId, MemberState.LEFT));

        applied(new MetadataCommand.SetReplicationFactor(2));
        assertThat(listener.metadata().replicationFactor(), is(2));
        assertThat(listener.role().orElse(""), is("listener"));
    }

    /** Stops the node that joined at {@code url} and starts it again on its directory, as {@code serve --join} would. */
    private MetadataGroup restartJoined(MetadataGroup joined, String url) throws Exception {
        int index = groups.indexOf(joined);
        clusters.get(index).close();
        running.remove(joined);
        ClusterNode node = ClusterNode.parse(url);
        ClusterMetadata now = awaitLeader().metadata();
        ClusterNodes view = ClusterNodes.joined(node, clusters.getFirst().topology().fingerprint(), now,
                now.member(Member.idOf(node)).orElseThrow().index());
        Cluster again = Cluster.start(ClusterSettings.of(List.of(url), url).withSecret(TestAuth.SECRET),
                view, new InMemoryStorageEngine(), HybridLogicalClock.systemClock(), handlerExecutor, ReplicaCallListener.NONE);
        clusters.set(index, again);
        handlers.get(urls.indexOf(url)).set(again.internalHandler());
        MetadataGroup group = again.startMetadata(MetadataSettings.defaults(dir.resolve("node" + index)));
        groups.set(index, group);
        running.add(group);
        return group;
    }

    /** Three nodes form the group; returns their ids, the voters. */
    private Set<String> startInitialMembers() throws Exception {
        for (int i = 0; i < 3; i++) {
            listen();
        }
        for (int i = 0; i < 3; i++) {
            Cluster cluster = Cluster.start(ClusterSettings.of(urls, urls.get(i)).withSecret(TestAuth.SECRET),
                    new InMemoryStorageEngine(), HybridLogicalClock.systemClock(), handlerExecutor);
            mount(i, cluster);
            groups.add(cluster.startMetadata(MetadataSettings.defaults(dir.resolve("node" + i))));
        }
        running.addAll(groups);
        awaitTrue(() -> running.stream().allMatch(group -> group.metadata().epoch() == 1), "every node at epoch 1");
        Set<String> initial = groups.stream().map(MetadataGroup::selfId).collect(java.util.stream.Collectors.toSet());
        awaitTrue(() -> leader().isPresent() && leader().get().configuration().orElseThrow().voters().equals(initial),
                "the three initial members vote");
        return initial;
    }

    /**
     * The node at {@code url} joins by {@code command} (an add or a replace): the metadata names it
     * joining, then its own server starts outside the group, and the leader adds it as a listener,
     * which never votes while joining.
     */
    private MetadataGroup join(String url, MetadataCommand command) throws Exception {
        ClusterNode joiner = ClusterNode.parse(url);
        String joinerId = Member.idOf(joiner);
        Set<String> votersBefore = awaitLeader().configuration().orElseThrow().voters();
        applied(command);
        ClusterMetadata withJoiner = awaitLeader().metadata();
        ClusterNodes joinedView = ClusterNodes.joined(joiner, clusters.getFirst().topology().fingerprint(), withJoiner,
                withJoiner.member(joinerId).orElseThrow().index());
        Cluster joinerCluster = Cluster.start(ClusterSettings.of(List.of(url), url).withSecret(TestAuth.SECRET),
                joinedView, new InMemoryStorageEngine(), HybridLogicalClock.systemClock(), handlerExecutor, ReplicaCallListener.NONE);
        mount(clusters.size(), joinerCluster);
        MetadataGroup joined = joinerCluster.startMetadata(MetadataSettings.defaults(dir.resolve("node" + groups.size())));
        groups.add(joined);
        running.add(joined);
        awaitTrue(() -> joined.role().orElse("").equals("listener") && joined.metadata().epoch() == withJoiner.epoch(),
                "the joining node listens and has applied the log");
        assertThat(awaitLeader().configuration().orElseThrow().voters(), equalTo(votersBefore));
        return joined;
    }

    /** Submits {@code command} through whichever running group answers; it must apply. */
    private void applied(MetadataCommand command) throws Exception {
        MetadataCodec.Outcome outcome = running.getFirst().submit(command).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(command + ": " + outcome.reason(), outcome.applied(), is(true));
        // A member removed from the group's configuration may not hear of the last entries before its removal.
        Set<String> left = awaitLeader().metadata().members().stream().filter(member -> member.state() == MemberState.LEFT)
                .map(Member::id).collect(java.util.stream.Collectors.toSet());
        awaitTrue(() -> running.stream().filter(group -> group.inGroup() && !left.contains(group.selfId()))
                        .allMatch(group -> group.metadata().epoch() >= outcome.epoch()),
                "every member applied epoch " + outcome.epoch());
    }

    private java.util.Optional<MetadataGroup> leader() {
        return running.stream().filter(MetadataGroup::isLeader).findFirst();
    }

    /**
     * The leader, once there is one: right after a change the leadership may be moving (a leader
     * that loses its vote, or whose change failed, hands it on), and for that moment none leads.
     */
    private MetadataGroup awaitLeader() throws InterruptedException {
        awaitTrue(() -> leader().isPresent(), "a member leads the group");
        return leader().orElseThrow();
    }

    private void stop(MetadataGroup group) {
        int index = groups.indexOf(group);
        clusters.get(index).close();
        running.remove(group);
    }

    private String listen() throws Exception {
        AtomicReference<HttpHandler> handler = new AtomicReference<>();
        ServerHarness server = ServerHarness.start(request -> {
            HttpHandler mounted = handler.get();
            if (mounted == null) {
                return java.util.concurrent.CompletableFuture.completedFuture(io.ringkv.http.server.Response.text(503, "starting"));
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
        return server.url();
    }

    private void mount(int index, Cluster cluster) {
        clusters.add(cluster);
        handlers.get(index).set(cluster.internalHandler());
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
