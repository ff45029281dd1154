package io.ringkv.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RendezvousPlacementTest {

    private static final long SEED = 20261122L;
    private static final int SPREAD_KEYS = 100_000;
    /**
     * Allowed deviation of a node's share from ideal, relative to ideal. A node's count is
     * binomial(N, p); its relative standard deviation is sqrt((1-p)/(N p)). The worst case below
     * is the primary share on 10 nodes, p = 0.1, N = 100,000: 0.95 %, so 5 % is more than 5
     * standard deviations, a chance below 1e-6 per node for a well-mixed hash. The keys are
     * seeded, so the test is deterministic; the margin says that any seed would pass, and that a
     * biased hash (e.g. a 10 % skew) cannot.
     */
    private static final double SPREAD_TOLERANCE = 0.05;

    private static ClusterNodes cluster(int n) {
        List<String> urls = IntStream.rangeClosed(1, n).mapToObj(i -> "http://node-" + i + ":" + (8080 + i)).toList();
        return ClusterNodes.of(urls, urls.get(0));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> ids(List<ClusterNode> nodes) {
        return nodes.stream().map(ClusterNode::id).toList();
    }

    @Test
    void turningTlsOnKeepsEveryKeyWhereItWas() {
        List<String> https = IntStream.rangeClosed(1, 5).mapToObj(i -> "https://node-" + i + ":" + (8080 + i)).toList();
        RendezvousPlacement secure = new RendezvousPlacement(ClusterNodes.of(https, https.get(0)));
        List<String> asHttp = ids(secure.order(utf8("k"))).stream().map(id -> id.replace("https://", "http://")).toList();
        assertThat(asHttp, equalTo(GOLDEN_K));
        assertThat(ids(secure.order(utf8("user:42"))).stream().map(id -> id.replace("https://", "http://")).toList(),
                equalTo(GOLDEN_USER_42));
    }

    @Test
    void matchesThePinnedGoldenOrderSoPlacementNeverChangesAcrossReleases() {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(5));
        assertThat(ids(placement.order(utf8("k"))), equalTo(GOLDEN_K));
        assertThat(ids(placement.order(utf8("user:42"))), equalTo(GOLDEN_USER_42));
        assertThat(ids(placement.order(new byte[] {0, (byte) 0xFF, 0x10, 0, 0, 0, 0, 0, 0, 7})), equalTo(GOLDEN_BINARY));
        assertThat(ids(placement.order(new byte[0])), equalTo(GOLDEN_EMPTY));
    }

    private static final List<String> GOLDEN_K = List.of("http://node-1:8081", "http://node-3:8083", "http://node-2:8082", "http://node-4:8084", "http://node-5:8085");
    private static final List<String> GOLDEN_USER_42 =
            List.of("http://node-3:8083", "http://node-2:8082", "http://node-5:8085", "http://node-1:8081", "http://node-4:8084");
    private static final List<String> GOLDEN_BINARY =
            List.of("http://node-3:8083", "http://node-1:8081", "http://node-2:8082", "http://node-4:8084", "http://node-5:8085");
    private static final List<String> GOLDEN_EMPTY =
            List.of("http://node-2:8082", "http://node-5:8085", "http://node-4:8084", "http://node-1:8081", "http://node-3:8083");

    @Test
    void givesTheSameOrderForAnyInstanceAndAnyListOrder() {
        List<String> urls = new ArrayList<>(IntStream.rangeClosed(1, 7).mapToObj(i -> "http://10.0.0." + i + ":9000").toList());
        RendezvousPlacement first = new RendezvousPlacement(ClusterNodes.of(urls, urls.get(0)));
        Collections.shuffle(urls, new Random(SEED));
        RendezvousPlacement shuffled = new RendezvousPlacement(ClusterNodes.of(urls, urls.get(3)));
        Random random = new Random(SEED);
        for (int i = 0; i < 10_000; i++) {
            byte[] key = randomKey(random);
            assertThat(shuffled.order(key), equalTo(first.order(key)));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 10})
    void replicasForASmallerFromArePrefixesOfALargerFrom(int n) {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(n));
        Random random = new Random(SEED + n);
        for (int i = 0; i < 5_000; i++) {
            byte[] key = randomKey(random);
            List<ClusterNode> order = placement.order(key);
            assertThat(order, hasSize(n));
            assertThat(new HashSet<>(order).size(), is(n));
            for (int from = 1; from <= n; from++) {
                assertThat(placement.replicas(key, from), equalTo(order.subList(0, from)));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 5, 10})
    void spreadsPrimariesAndReplicaSlotsEvenly(int n) {
        ClusterNodes nodes = cluster(n);
        RendezvousPlacement placement = new RendezvousPlacement(nodes);
        int from = ReplicationParams.quorum(n);
        Map<ClusterNode, Integer> primaries = new HashMap<>();
        Map<ClusterNode, Integer> slots = new HashMap<>();
        Random random = new Random(SEED * n);
        for (int i = 0; i < SPREAD_KEYS; i++) {
            List<ClusterNode> replicas = placement.replicas(randomKey(random), from);
            primaries.merge(replicas.get(0), 1, Integer::sum);
            replicas.forEach(node -> slots.merge(node, 1, Integer::sum));
        }
        for (ClusterNode node : nodes.all()) {
            assertWithinTolerance(primaries.getOrDefault(node, 0), (double) SPREAD_KEYS / n);
            assertWithinTolerance(slots.getOrDefault(node, 0), (double) SPREAD_KEYS * from / n);
        }
    }

    @Test
    void spreadsSequentialStringKeysEvenlyToo() {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(5));
        Map<ClusterNode, Integer> primaries = new HashMap<>();
        for (int i = 0; i < SPREAD_KEYS; i++) {
            primaries.merge(placement.replicas(utf8("key" + i), 1).get(0), 1, Integer::sum);
        }
        primaries.values().forEach(count -> assertWithinTolerance(count, SPREAD_KEYS / 5.0));
    }

    /** RF < N: a key's owners are the first RF nodes of its order; ranks, owns and bothOwn agree with the order. */
    @Test
    void ownersAreTheFirstRfNodesOfTheOrderWhenRfIsBelowTheClusterSize() {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(5));
        Random random = new Random(SEED);
        for (int i = 0; i < 2_000; i++) {
            byte[] key = randomKey(random);
            List<ClusterNode> order = placement.order(key);
            List<ClusterNode> owners = placement.owners(key, 3);
            assertThat(owners, equalTo(order.subList(0, 3)));
            int[] ranks = placement.ranks(key);
            for (int n = 0; n < placement.nodes().size(); n++) {
                ClusterNode node = placement.nodes().get(n);
                assertThat("rank of " + node, ranks[n], is(order.indexOf(node) + 1));
                assertThat(placement.rankOf(key, node), is(ranks[n]));
                assertThat(placement.owns(key, node, 3), is(owners.contains(node)));
            }
            for (ClusterNode a : order) {
                for (ClusterNode b : order) {
                    if (!a.equals(b)) {
                        assertThat(placement.bothOwn(key, a, b, 3), is(owners.contains(a) && owners.contains(b)));
                    }
                }
            }
        }
    }

    /** RF = N: every node owns every key (the behaviour of clusters of up to 3 nodes at the default factor). */
    @Test
    void everyNodeOwnsEveryKeyWhenRfIsTheClusterSize() {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(3));
        Random random = new Random(SEED);
        for (int i = 0; i < 1_000; i++) {
            byte[] key = randomKey(random);
            assertThat(new HashSet<>(placement.owners(key, 3)), equalTo(new HashSet<>(placement.nodes())));
            for (ClusterNode node : placement.nodes()) {
                assertThat(placement.owns(key, node, 3), is(true));
            }
        }
    }

    /**
     * An explicit {@code from} larger than RF extends the owners with the next nodes of the order:
     * the owners stay its first RF, and the extra nodes own nothing of the key.
     */
    @Test
    void anExplicitFromBeyondRfExtendsTheOwnersWithTheNextNodesInOrder() {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(5));
        Random random = new Random(SEED);
        for (int i = 0; i < 1_000; i++) {
            byte[] key = randomKey(random);
            List<ClusterNode> wider = placement.replicas(key, 5);
            assertThat(wider.subList(0, 3), equalTo(placement.owners(key, 3)));
            assertThat(placement.owns(key, wider.get(3), 3), is(false));
            assertThat(placement.owns(key, wider.get(4), 3), is(false));
        }
    }

    /** 5 nodes at RF 3: each node owns 3/5 of the keys. */
    @Test
    void eachOfFiveNodesOwnsThreeFifthsOfTheKeysAtRfThree() {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(5));
        Map<ClusterNode, Integer> owned = new HashMap<>();
        for (int i = 0; i < SPREAD_KEYS; i++) {
            for (ClusterNode owner : placement.owners(utf8("key" + i), 3)) {
                owned.merge(owner, 1, Integer::sum);
            }
        }
        assertThat(owned.keySet(), hasSize(5));
        owned.values().forEach(count -> assertWithinTolerance(count, SPREAD_KEYS * 3 / 5.0));
    }

    @Test
    void rejectsFromOutsideOneToClusterSize() {
        RendezvousPlacement placement = new RendezvousPlacement(cluster(3));
        assertThrows(IllegalArgumentException.class, () -> placement.replicas(utf8("k"), 0));
        assertThrows(IllegalArgumentException.class, () -> placement.replicas(utf8("k"), 4));
    }

    private static void assertWithinTolerance(int count, double ideal) {
        assertThat((double) count, is(both(greaterThanOrEqualTo(ideal * (1 - SPREAD_TOLERANCE)))
                .and(lessThanOrEqualTo(ideal * (1 + SPREAD_TOLERANCE)))));
    }

    private static byte[] randomKey(Random random) {
        byte[] key = new byte[1 + random.nextInt(32)];
        random.nextBytes(key);
        return key;
    }
}
