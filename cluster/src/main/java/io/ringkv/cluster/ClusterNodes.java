package io.ringkv.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The static cluster topology: every node, in the order the operator listed them, and which one
 * is this process ("self"). Immutable, so safe to share between threads.
 *
 * <p>Every node is started with the same list; placement depends only on the set of node ids,
 * not on the order of the list, so a reordered list on one node still routes identically.
 */
public final class ClusterNodes {

    private final List<ClusterNode> nodes;
    private final ClusterNode self;

    private ClusterNodes(List<ClusterNode> nodes, ClusterNode self) {
        this.nodes = List.copyOf(nodes);
        this.self = self;
    }

    /**
     * @param urls    every node's URL, self included
     * @param selfUrl this process's URL; must be one of {@code urls} after normalisation
     * @throws IllegalArgumentException for an empty list, an invalid URL, two URLs naming the same
     *         node, a URL whose scheme (http, https) is not self's, or a self URL that is not in the list
     */
    public static ClusterNodes of(Collection<String> urls, String selfUrl) {
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("the cluster needs at least one node URL");
        }
        List<ClusterNode> nodes = new ArrayList<>(urls.size());
        Set<String> seen = new HashSet<>();
        for (String url : urls) {
            ClusterNode node = ClusterNode.parse(url);
            if (!seen.add(node.id())) {
                throw new IllegalArgumentException("node URL '" + url + "' is listed twice (as " + node.id() + ")");
            }
            nodes.add(node);
        }
        if (nodes.size() > io.ringkv.store.HybridLogicalClock.NODE_MAX + 1) {
            throw new IllegalArgumentException("a cluster has at most " + (io.ringkv.store.HybridLogicalClock.NODE_MAX + 1)
                    + " nodes (timestamps carry a 4-bit node index), got " + nodes.size());
        }
        ClusterNode self = ClusterNode.parse(selfUrl);
        // One plane: a node speaks TLS to every peer or to none, and the ids all nodes hash
        // (scheme included) must be the same list everywhere.
        for (ClusterNode node : nodes) {
            if (node.secure() != self.secure()) {
                throw new IllegalArgumentException("node URL '" + node.id() + "' is " + (node.secure() ? "https" : "http")
                        + " but this node serves " + (self.secure() ? "https (it has a TLS certificate): list every node as https://"
                        : "http (it has no TLS certificate): list every node as http://, or give every node --tls-cert and --tls-key"));
            }
        }
        if (!seen.contains(self.id())) {
            throw new IllegalArgumentException("this node's URL " + self.id() + " is not in the cluster list " + nodes);
        }
        return new ClusterNodes(nodes, self);
    }

    /** A one-node cluster: the single-node behaviour of the public API. */
    public static ClusterNodes single(String selfUrl) {
        return of(List.of(selfUrl), selfUrl);
    }

    /** Every node, self included, in the order given. */
    public List<ClusterNode> all() {
        return nodes;
    }

    /** Every node except self, in the order given. */
    public List<ClusterNode> others() {
        return nodes.stream().filter(node -> !node.equals(self)).toList();
    }

    public ClusterNode self() {
        return self;
    }

    /** This node's position among the node ids sorted: the same on every node, 0..15; its timestamps carry it. */
    public int indexOfSelf() {
        return nodes.stream().map(ClusterNode::id).sorted().toList().indexOf(self.id());
    }

    public boolean isSelf(ClusterNode node) {
        return self.equals(node);
    }

    public int size() {
        return nodes.size();
    }

    /**
     * Identifies the node list: the first 16 hex digits of SHA-256 over the sorted node ids, one per
     * line. Nodes started with the same list (in any order, after normalisation) agree on it; every
     * internal request carries it, and a node refuses one that differs (409).
     */
    public String fingerprint() {
        List<String> ids = nodes.stream().map(ClusterNode::id).sorted().toList();
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(String.join("\n", ids).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(digest, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    @Override
    public String toString() {
        return "ClusterNodes{self=" + self + ", all=" + nodes + '}';
    }
}
