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
     *         node, or a self URL that is not in the list
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
        ClusterNode self = ClusterNode.parse(selfUrl);
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

    public boolean isSelf(ClusterNode node) {
        return self.equals(node);
    }

    public int size() {
        return nodes.size();
    }

    @Override
    public String toString() {
        return "ClusterNodes{self=" + self + ", all=" + nodes + '}';
    }
}
