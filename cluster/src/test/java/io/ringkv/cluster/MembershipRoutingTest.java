package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.ringkv.cluster.meta.ClusterMetadata;
import io.ringkv.cluster.meta.Member;
import io.ringkv.cluster.meta.MemberState;
import io.ringkv.store.HybridLogicalClock;
import io.ringkv.store.InMemoryStorageEngine;
import io.ringkv.store.StorageEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Routing while the membership changes: the view a node builds from the metadata, the pending
 * replicas a write goes to while a member joins or leaves (and the acknowledgement each adds), and
 * the view following newer metadata. Real engines per node, no mocks.
 */
class MembershipRoutingTest {

    private static final List<String> URLS = List.of("http://n1:1", "http://n2:2", "http://n3:3", "http://n4:4");
    private static final int KEYS = 400;

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS), is(true));
    }

    private static Member member(String url, MemberState state, int index) {
        return new Member(Member.idOf(ClusterNode.parse(url)), ClusterNode.parse(url).id(), state, index, null);
    }

    private static ClusterMetadata metadata(long epoch, MemberState fourth) {
        List<Member> members = new ArrayList<>();
        for (int i = 2; i >= 0; i--) { // not in the list's order: the view keeps the list's
            members.add(member(URLS.get(i), MemberState.NORMAL, i));
        }
        members.add(member(URLS.get(3), fourth, 3));
        return new ClusterMetadata(epoch, 3, members);
    }

    private static byte[] key(int i) {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aJoiningMemberIsPendingForTheKeysItWillOwnAndOwnsNothingYet() {
        MembershipView view = MembershipView.of(metadata(2, MemberState.JOINING));
        ClusterNode joining = ClusterNode.parse(URLS.get(3));
        assertThat(view.changing(), is(true));
        assertThat(view.owners(), not(org.hamcrest.Matchers.hasItem(joining)));
        assertThat(view.members(), org.hamcrest.Matchers.hasItem(joining));
        MembershipView after = MembershipView.of(metadata(3, MemberState.NORMAL));
        int pendingKeys = 0;
        for (int i = 0; i < KEYS; i++) {
            List<ClusterNode> pending = view.pending(key(i), 3);
            boolean willOwn = after.placement().owns(key(i), joining, 3);
            // Pending exactly where the join gives the new member the key, and only the new member.
            assertThat(pending, equalTo(willOwn ? List.of(joining) : List.of()));
            pendingKeys += pending.size();
        }
        // Rendezvous gives a fourth node about 3/4 of the keys at RF 3.
        assertThat(pendingKeys > KEYS / 2 && pendingKeys < KEYS, is(true));
    }

    @Test
    void aLeavingMemberStillOwnsItsKeysAndTheirNextOwnersArePending() {
        MembershipView view = MembershipView.of(metadata(4, MemberState.LEAVING));
        ClusterNode leaving = ClusterNode.parse(URLS.get(3));
        assertThat(view.owners(), org.hamcrest.Matchers.hasItem(leaving));
        for (int i = 0; i < KEYS; i++) {
            List<ClusterNode> pending = view.pending(key(i), 3);
            boolean heldByLeaving = view.placement().owns(key(i), leaving, 3);
            // A key the leaving member holds gets the one node that takes its place; others change nothing.
            assertThat(pending.size(), equalTo(heldByLeaving ? 1 : 0));
            assertThat(pending, not(org.hamcrest.Matchers.hasItem(leaving)));
        }
    }

    /**
     * A node replacing a dead member stands in for it: a write of one of the dead member's keys goes
     * to the key's future owners only, and needs no more acknowledgements than before (the dead
     * member could never give one); a key the replacement takes from a live owner needs a quorum
     * of its owners and one of its future owners.
     */
    @Test
    void aReplacementStandsInForTheDeadMemberWithoutAFurtherAcknowledgement() {
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(member(URLS.get(i), MemberState.NORMAL, i));
        }
        ClusterNode dead = ClusterNode.parse(URLS.get(2));
        ClusterNode replacement = ClusterNode.parse(URLS.get(3));
        members.add(new Member(Member.idOf(replacement), replacement.id(), MemberState.JOINING, 3, Member.idOf(dead)));
        MembershipView view = MembershipView.of(new ClusterMetadata(2, 2, members));
        assertThat(view.replaced(), contains(dead));
        int substituted = 0;
        int substitutedByReplacement = 0;
        for (int i = 0; i < KEYS; i++) {
            List<ClusterNode> owners = view.placement().replicas(key(i), 2);
            MembershipView.WriteSet writes = view.writeSet(key(i), owners, 2, 2);
            assertThat(writes.nodes(), not(org.hamcrest.Matchers.hasItem(dead)));
            List<ClusterNode> pending = view.pending(key(i), 2);
            assertThat(writes.nodes().containsAll(pending), is(true));
            List<ClusterNode> future = view.futurePlacement().replicas(key(i), 2);
            if (owners.contains(dead)) {
                // Rendezvous hands a dead member's key to whichever node ranks next: the replacement
                // or another owner; either way the write is the key's future owners, both needed,
                // and of its owners only the survivor counts, needed once.
                assertThat(writes.nodes().size(), is(2));
                assertThat(new java.util.HashSet<>(writes.nodes()), equalTo(new java.util.HashSet<>(future)));
                assertThat(writes.owners(), equalTo(new MembershipView.Group(
                        owners.stream().filter(node -> !node.equals(dead)).toList(), 1)));
                assertThat(writes.futureOwners(), equalTo(new MembershipView.Group(future, 2)));
                substituted++;
                substitutedByReplacement += writes.nodes().contains(replacement) ? 1 : 0;
            } else if (!pending.isEmpty()) {
                // The replacement takes the key from a live owner: both groups of two, each needed in full.
                assertThat(writes.owners(), equalTo(new MembershipView.Group(owners, 2)));
                assertThat(writes.futureOwners(), equalTo(new MembershipView.Group(future, 2)));
            } else {
                assertThat(writes, equalTo(MembershipView.WriteSet.of(owners, 2)));
            }
        }
        assertThat(substituted > 0, is(true));
        assertThat(substitutedByReplacement > 0, is(true));
    }

    /**
     * Who sends a key to the node that joins: a majority of the key's owners (two at RF 3), the
     * first by rank in full and the second only where its digest differs from the first's, so a
     * write acknowledged by a majority reaches it; for a replacement, the surviving owners (the dead
     * member left out), the second again against the first; a leaving node sends every key it holds.
     */
    @Test
    void aMajorityOfTheOwnersSendEachKeyToAJoiningNodeAndALeavingNodeSendsAll() {
        MembershipView joining = MembershipView.of(metadata(2, MemberState.JOINING));
        MembershipView leaving = MembershipView.of(metadata(4, MemberState.LEAVING));
        ClusterNode leaver = ClusterNode.parse(URLS.get(3));
        for (int i = 0; i < KEYS; i++) {
            byte[] key = key(i);
            List<ClusterNode> owners = joining.placement().replicas(key, 3);
            List<ClusterNode> senders = owners.stream().filter(node -> Cleanup.rule(joining, node, key, 3).sends()).toList();
            assertThat(senders, equalTo(owners.subList(0, 2)));
            assertThat(Cleanup.rule(joining, owners.get(0), key, 3), equalTo(Cleanup.SendRule.ALWAYS));
            assertThat(Cleanup.rule(joining, owners.get(1), key, 3).firstSource(), equalTo(owners.get(0)));
            assertThat(Cleanup.rule(leaving, leaver, key(i), 3), equalTo(Cleanup.SendRule.ALWAYS));
        }
        List<Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(member(URLS.get(i), MemberState.NORMAL, i));
        }
        ClusterNode dead = ClusterNode.parse(URLS.get(2));
        ClusterNode replacement = ClusterNode.parse(URLS.get(3));
        members.add(new Member(Member.idOf(replacement), replacement.id(), MemberState.JOINING, 3, Member.idOf(dead)));
        MembershipView replacing = MembershipView.of(new ClusterMetadata(2, 3, members));
        List<ClusterNode> survivors = List.of(ClusterNode.parse(URLS.get(0)), ClusterNode.parse(URLS.get(1)));
        for (int i = 0; i < KEYS; i++) {
            List<ClusterNode> order = replicas(replacing, key(i)).stream().filter(survivors::contains).toList();
            assertThat(Cleanup.rule(replacing, order.get(0), key(i), 3), equalTo(Cleanup.SendRule.ALWAYS));
            assertThat(Cleanup.rule(replacing, order.get(1), key(i), 3), equalTo(new Cleanup.SendRule(true, order.get(0))));
        }
    }

    private static List<ClusterNode> replicas(MembershipView view, byte[] key) {
        return view.placement().replicas(key, 3);
    }

    @Test
    void withoutAChangeNothingIsPending() {
        MembershipView view = MembershipView.of(metadata(3, MemberState.NORMAL));
        assertThat(view.changing(), is(false));
        for (int i = 0; i < KEYS; i++) {
            assertThat(view.pending(key(i), 3), empty());
        }
    }

    @Test
    void theViewFollowsNewerMetadataAndTellsListenersOfEachChangeOfMembers() {
        ClusterNodes topology = ClusterNodes.of(URLS.subList(0, 3), URLS.get(0));
        List<Integer> sizes = new ArrayList<>();
        topology.onChange((before, after) -> sizes.add(after.members().size()));
        assertThat(topology.all().size(), is(3));
        topology.follow(metadata(2, MemberState.JOINING));
        assertThat(topology.all().size(), is(4));
        // The list's order stays (the status and the dashboard show it); a new member comes after it.
        assertThat(topology.all(), equalTo(URLS.stream().map(ClusterNode::parse).toList()));
        assertThat(topology.size(), is(3)); // owners: the joining member owns nothing yet
        topology.follow(metadata(3, MemberState.NORMAL));
        assertThat(topology.size(), is(4));
        topology.follow(metadata(5, MemberState.LEFT));
        assertThat(topology.all().size(), is(3));
        assertThat(topology.view().epoch(), is(5L));
        assertThat(sizes, contains(4, 4, 3));
    }

    /**
     * A write made while a fourth node joins reaches it for the keys it will own, and needs a quorum
     * of the key's future owners besides a quorum of its owners: with the pending replica down and
     * an owner that stays an owner down, a 2/3 write of such a key falls short (the client hears
     * 504) instead of being acknowledged by owners alone; with the displaced owner down instead,
     * the two that stay acknowledge it.
     */
    @Test
    void aWriteDuringAJoinReachesThePendingReplicaAndCountsItsAcknowledgement() throws Exception {
        ClusterNodes topology = ClusterNodes.of(URLS.subList(0, 3), URLS.get(0));
        topology.follow(metadata(2, MemberState.JOINING));
        ClusterNode joining = ClusterNode.parse(URLS.get(3));
        Map<ClusterNode, StorageEngine> engines = new HashMap<>();
        Map<ClusterNode, Replica> replicas = new HashMap<>();
        for (String url : URLS) {
            ClusterNode node = ClusterNode.parse(url);
            engines.put(node, new InMemoryStorageEngine());
            replicas.put(node, new LocalReplica(node, engines.get(node)));
        }
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_700_000_000_000L);
        Coordinator coordinator = new Coordinator(topology, replicas, clock,
                new CoordinatorSettings(Duration.ofSeconds(5), executor));
        MembershipView view = topology.view();
        int pendingWrites = 0;
        for (int i = 0; i < 50; i++) {
            WriteOutcome outcome = coordinator.put(key(i), key(i), new ReplicationParams(2, 3)).get(10, TimeUnit.SECONDS);
            assertThat(outcome, instanceOf(WriteOutcome.Acknowledged.class));
            boolean pending = !view.pending(key(i), 3).isEmpty();
            assertThat(engines.get(joining).get(key(i)).isPresent(), is(pending));
            pendingWrites += pending ? 1 : 0;
        }
        assertThat(pendingWrites > 0, is(true));

        Map<ClusterNode, Replica> joiningDown = new HashMap<>(replicas);
        joiningDown.put(joining, new FailingReplica(joining));
        Coordinator withoutIt = new Coordinator(topology, joiningDown, clock,
                new CoordinatorSettings(Duration.ofSeconds(5), executor));
        int key = 0;
        while (view.pending(key(key), 3).isEmpty()) {
            key++;
        }
        List<ClusterNode> owners = view.placement().replicas(key(key), 3);
        List<ClusterNode> future = view.futurePlacement().replicas(key(key), 3);
        ClusterNode staying = owners.stream().filter(future::contains).findFirst().orElseThrow();
        ClusterNode displaced = owners.stream().filter(node -> !future.contains(node)).findFirst().orElseThrow();
        assertThat(withoutIt.put(key(key), key(key), new ReplicationParams(2, 3)).get(10, TimeUnit.SECONDS),
                instanceOf(WriteOutcome.Acknowledged.class));

        // An owner that stays an owner down too: the other one and the displaced owner are two of
        // the owners but one of the future owners, so the write falls short (504).
        Map<ClusterNode, Replica> stayingDown = new HashMap<>(joiningDown);
        stayingDown.put(staying, new FailingReplica(staying));
        Coordinator withoutStaying = new Coordinator(topology, stayingDown, clock, new CoordinatorSettings(Duration.ofSeconds(5), executor));
        NotEnoughReplicas shortOfFuture = (NotEnoughReplicas) withoutStaying.put(key(key), key(key), new ReplicationParams(2, 3))
                .get(10, TimeUnit.SECONDS);
        assertThat("the future owners' count: two of three failed, two needed",
                List.of(shortOfFuture.failures(), shortOfFuture.ack(), shortOfFuture.from()), contains(2, 2, 3));

        // The displaced owner down instead: the two owners that stay are a quorum of both groups and
        // acknowledge it alone (counting the pending replica as Cassandra does, 3 of 4 answers,
        // would have made this a 504).
        Map<ClusterNode, Replica> displacedDown = new HashMap<>(joiningDown);
        displacedDown.put(displaced, new FailingReplica(displaced));
        Coordinator withoutDisplaced = new Coordinator(topology, displacedDown, clock, new CoordinatorSettings(Duration.ofSeconds(5), executor));
        assertThat(withoutDisplaced.put(key(key), "by the staying owners".getBytes(StandardCharsets.UTF_8), new ReplicationParams(2, 3))
                .get(10, TimeUnit.SECONDS), instanceOf(WriteOutcome.Acknowledged.class));
        for (ClusterNode owner : owners) {
            if (!owner.equals(displaced)) {
                assertThat(new String(engines.get(owner).get(key(key)).orElseThrow().value(), StandardCharsets.UTF_8),
                        is("by the staying owners"));
            }
        }
    }

    @Test
    void conditionalWritesAreRefusedWhileAMemberJoins() throws Exception {
        ClusterNodes topology = ClusterNodes.of(URLS.subList(0, 3), URLS.get(0));
        topology.follow(metadata(2, MemberState.JOINING));
        Map<ClusterNode, Replica> replicas = new HashMap<>();
        for (String url : URLS) {
            ClusterNode node = ClusterNode.parse(url);
            replicas.put(node, new LocalReplica(node, new InMemoryStorageEngine()));
        }
        HybridLogicalClock clock = new HybridLogicalClock(() -> 1_700_000_000_000L);
        Coordinator coordinator = new Coordinator(topology, replicas, clock, new CoordinatorSettings(Duration.ofSeconds(5), executor));
        CompareAndSet cas = new CompareAndSet(topology, () -> 3, node -> {
            throw new AssertionError("no Paxos round may start during a join");
        }, coordinator, clock, null, executor);
        ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> cas.write(key(1), live -> true, timestamp -> io.ringkv.store.Record.value(timestamp, key(1)),
                        new ReplicationParams(2, 3)).get(10, TimeUnit.SECONDS));
        assertThat(refused.getCause(), instanceOf(MembershipChangeException.class));
        assertThat(refused.getCause().getMessage(), containsString("joining or leaving"));
    }
}
