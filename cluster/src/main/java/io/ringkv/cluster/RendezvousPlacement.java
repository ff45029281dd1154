package io.ringkv.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Replica placement by rendezvous (highest-random-weight) hashing.
 *
 * <p>For a key, every node gets a score {@code hash(key, seed(node id))}; the key's replica order
 * is the nodes by descending score (ties, astronomically unlikely, broken by node id). The first
 * node is the primary; {@code replicas(key, from)} is the first {@code from} nodes of that order,
 * so the replica set for a smaller {@code from} is always a prefix of the set for a larger one,
 * which is what the {@code ack/from} contract needs.
 *
 * <p>Worked example: with nodes A, B, C and scores A=0x9…, B=0x2…, C=0xE… (unsigned) for key k,
 * the order is C, A, B: {@code replicas(k, 1) = [C]}, {@code replicas(k, 2) = [C, A]}. Removing
 * B from the cluster moves no key whose replicas did not include B; adding a node D moves a key
 * only if D outscores one of its replicas, about 1/n of the keys: the minimal disruption that
 * makes rendezvous hashing the right fit for a static node list.
 *
 * <p>The order depends only on the set of node ids (their {@link ClusterNode#placementKey()}s:
 * http and https name the same node), never on the order of the list, the process or the JVM.
 * Immutable, thread-safe. Cost: one hash of the key per node, i.e. O(n · |key|).
 */
public final class RendezvousPlacement {

    private final ClusterNode[] nodes;
    private final long[] seeds;

    public RendezvousPlacement(ClusterNodes topology) {
        this.nodes = topology.all().toArray(ClusterNode[]::new);
        this.seeds = new long[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            seeds[i] = PlacementHash.hash(nodes[i].placementKey().getBytes(StandardCharsets.UTF_8), 0);
        }
    }

    /** Every node in the key's replica order: the primary first. */
    public List<ClusterNode> order(byte[] key) {
        return replicas(key, nodes.length);
    }

    /**
     * The first {@code from} nodes of the key's replica order.
     *
     * @throws IllegalArgumentException unless {@code 1 <= from <= cluster size}
     */
    public List<ClusterNode> replicas(byte[] key, int from) {
        if (from < 1 || from > nodes.length) {
            throw new IllegalArgumentException("from must be in 1.." + nodes.length + ", got " + from);
        }
        Scored[] scored = new Scored[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            scored[i] = new Scored(nodes[i], PlacementHash.hash(key, seeds[i]));
        }
        Arrays.sort(scored, RendezvousPlacement::higherScoreFirst);
        ClusterNode[] chosen = new ClusterNode[from];
        for (int i = 0; i < from; i++) {
            chosen[i] = scored[i].node;
        }
        return List.of(chosen);
    }

    /**
     * Whether {@code a} comes before {@code b} in {@code key}'s replica order: then every replica set
     * of the key that holds {@code b} holds {@code a} too (sets are prefixes of the order).
     */
    public boolean ranksAbove(byte[] key, ClusterNode a, ClusterNode b) {
        Scored scoredA = new Scored(a, PlacementHash.hash(key, seedOf(a)));
        Scored scoredB = new Scored(b, PlacementHash.hash(key, seedOf(b)));
        return higherScoreFirst(scoredA, scoredB) < 0;
    }

    private long seedOf(ClusterNode node) {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i].equals(node)) {
                return seeds[i];
            }
        }
        throw new IllegalArgumentException("not a node of this cluster: " + node);
    }

    public int clusterSize() {
        return nodes.length;
    }

    private static int higherScoreFirst(Scored a, Scored b) {
        int byScore = Long.compareUnsigned(b.score, a.score);
        return byScore != 0 ? byScore : a.node.id().compareTo(b.node.id());
    }

    private record Scored(ClusterNode node, long score) {
    }
}
