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

    /** The placement over the owners of {@code topology}'s current view. */
    public RendezvousPlacement(ClusterNodes topology) {
        this(topology.placement().nodes());
    }

    /**
     * @throws IllegalArgumentException for no node
     */
    public RendezvousPlacement(List<ClusterNode> owners) {
        if (owners.isEmpty()) {
            throw new IllegalArgumentException("a placement needs at least one node");
        }
        this.nodes = owners.toArray(ClusterNode[]::new);
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
        return seeds[indexOf(node)];
    }

    public int clusterSize() {
        return nodes.length;
    }

    /**
     * The key's owners under replication factor {@code rf}: the first {@code rf} nodes of its order,
     * the nodes that hold it and compare it in anti-entropy ({@link #replicas} under another name,
     * for readers of the ownership code).
     */
    public List<ClusterNode> owners(byte[] key, int rf) {
        return replicas(key, rf);
    }

    /** The nodes of this placement, in the order {@link #ranks} reports them (a fixed order, not a key's). */
    public List<ClusterNode> nodes() {
        return List.of(nodes);
    }

    /**
     * Each node's rank in {@code key}'s replica order, 1 for the primary, indexed as {@link #nodes()}:
     * one hash per node and no sort, for callers that ask about several nodes of one key.
     */
    public int[] ranks(byte[] key) {
        long[] scores = new long[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            scores[i] = PlacementHash.hash(key, seeds[i]);
        }
        int[] ranks = new int[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            int rank = 1;
            for (int j = 0; j < nodes.length; j++) {
                if (j != i && outranks(scores[j], nodes[j], scores[i], nodes[i])) {
                    rank++;
                }
            }
            ranks[i] = rank;
        }
        return ranks;
    }

    /** {@code node}'s rank in {@code key}'s replica order, 1 for the primary. */
    public int rankOf(byte[] key, ClusterNode node) {
        int index = indexOf(node);
        long score = PlacementHash.hash(key, seeds[index]);
        int rank = 1;
        for (int j = 0; j < nodes.length; j++) {
            if (j != index && outranks(PlacementHash.hash(key, seeds[j]), nodes[j], score, node)) {
                rank++;
            }
        }
        return rank;
    }

    /** Whether {@code node} is among {@code key}'s first {@code rf} nodes. */
    public boolean owns(byte[] key, ClusterNode node, int rf) {
        return rankOf(key, node) <= rf;
    }

    /**
     * Whether both {@code a} and {@code b} own {@code key} under {@code rf}: the keys two nodes
     * compare in anti-entropy.
     */
    public boolean bothOwn(byte[] key, ClusterNode a, ClusterNode b, int rf) {
        int[] ranks = ranks(key);
        return ranks[indexOf(a)] <= rf && ranks[indexOf(b)] <= rf;
    }

    /** Whether {@code node} is one of this placement's nodes. */
    public boolean contains(ClusterNode node) {
        for (ClusterNode each : nodes) {
            if (each.equals(node)) {
                return true;
            }
        }
        return false;
    }

    /** The position of {@code node} in {@link #nodes()}. */
    public int indexOf(ClusterNode node) {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i].equals(node)) {
                return i;
            }
        }
        throw new IllegalArgumentException("not a node of this cluster: " + node);
    }

    private static boolean outranks(long scoreA, ClusterNode a, long scoreB, ClusterNode b) {
        int byScore = Long.compareUnsigned(scoreB, scoreA);
        return byScore != 0 ? byScore < 0 : a.id().compareTo(b.id()) < 0;
    }

    private static int higherScoreFirst(Scored a, Scored b) {
        int byScore = Long.compareUnsigned(b.score, a.score);
        return byScore != 0 ? byScore : a.node.id().compareTo(b.node.id());
    }

    private record Scored(ClusterNode node, long score) {
    }
}
