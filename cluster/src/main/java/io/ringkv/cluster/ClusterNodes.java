package io.ringkv.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The cluster as this node knows it: which process is this one ("self"), the cluster's identity
 * ({@link #fingerprint()}, fixed for the cluster's life) and the current {@link MembershipView}:
 * the members, who owns keys, and who will once a join or a decommission in progress is done.
 *
 * <p>The view starts from the {@code --cluster} list (every node normal, epoch 0; a node that joins
 * starts from the metadata its join was answered with) and follows the cluster metadata from then
 * on ({@link #follow}): a member that joins appears in {@link #all()}, one that has left disappears.
 * Callers read the view once per operation ({@link #view()}, {@link #placement()}) and route the
 * whole operation by it.
 *
 * <p>Placement depends only on the set of owner ids, not on the order of a list, so a reordered
 * list on one node still routes identically.
 *
 * <p>Threading: thread-safe. The view is a volatile reference to an immutable value; {@link #follow}
 * is called by {@link KnownMetadata}'s offer, one epoch at a time, and runs the listeners on its
 * thread (they must be quick and not block).
 */
public final class ClusterNodes {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ClusterNodes.class);

    private final ClusterNode self;
    private final String fingerprint;
    private final int configuredIndex;
    private final java.util.List<java.util.function.BiConsumer<MembershipView, MembershipView>> listeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile MembershipView view;

    private ClusterNodes(List<ClusterNode> nodes, ClusterNode self) {
        this(MembershipView.ofList(nodes), self, fingerprintOf(nodes),
                nodes.stream().map(ClusterNode::id).sorted().toList().indexOf(self.id()));
    }

    private ClusterNodes(MembershipView view, ClusterNode self, String fingerprint, int configuredIndex) {
        this.view = view;
        this.self = self;
        this.fingerprint = fingerprint;
        this.configuredIndex = configuredIndex;
    }

    /**
     * A node that joined a running cluster: its view comes from the metadata its join was answered
     * with, its identity from the cluster's.
     *
     * @param fingerprint the cluster's {@link #fingerprint()}, as its members report it
     * @param index       this node's clock slot in the metadata
     * @throws IllegalArgumentException when the metadata does not name {@code self} as a member
     */
    public static ClusterNodes joined(ClusterNode self, String fingerprint, io.ringkv.cluster.meta.ClusterMetadata metadata,
                                      int index) {
        MembershipView view = MembershipView.of(metadata);
        if (!view.isMember(self)) {
            throw new IllegalArgumentException("the cluster metadata at epoch " + metadata.epoch() + " does not list "
                    + self.id() + " as a member");
        }
        return new ClusterNodes(view, self, fingerprint, index);
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

    /** The current view: read it once per operation and route the whole operation by it. */
    public MembershipView view() {
        return view;
    }

    /** Placement over the current owners. */
    public RendezvousPlacement placement() {
        return view.placement();
    }

    /** Every member that has not left, self included (while it is a member), joining ones too. */
    public List<ClusterNode> all() {
        return view.members();
    }

    /** Every member except self. */
    public List<ClusterNode> others() {
        return view.members().stream().filter(node -> !node.equals(self)).toList();
    }

    public ClusterNode self() {
        return self;
    }

    /**
     * This node's slot in its timestamps, 0..15: its position among the sorted ids of the
     * {@code --cluster} list (the same on every node), or the slot the metadata gave a node that joined.
     */
    public int indexOfSelf() {
        return configuredIndex;
    }

    public boolean isSelf(ClusterNode node) {
        return self.equals(node);
    }

    /** The owners now: the most copies of a key, and what {@code from} may be at most. */
    public int size() {
        return view.placement().clusterSize();
    }

    /**
     * Identifies the cluster: the first 16 hex digits of SHA-256 over the sorted ids of its initial
     * node list, one per line. Nodes started with the same list (in any order, after normalisation)
     * agree on it, and a node that joins takes its members'; every internal request carries it,
     * and a node refuses one that differs (409). Members joining or leaving do not change it.
     */
    public String fingerprint() {
        return fingerprint;
    }

    /**
     * Hears every change of the view's members or states (old view, new view), on the thread that
     * applies the metadata; must not block.
     */
    public void onChange(java.util.function.BiConsumer<MembershipView, MembershipView> listener) {
        listeners.add(listener);
    }

    /**
     * Follows newer metadata: a new view when its members or their states differ, else only the
     * epoch moves. Metadata not initialised, or without a normal member, changes nothing.
     */
    public void follow(io.ringkv.cluster.meta.ClusterMetadata metadata) {
        if (!metadata.initialised()) {
            return;
        }
        MembershipView next;
        try {
            next = MembershipView.of(metadata, view.members());
        } catch (IllegalArgumentException e) {
            LOG.error("cannot route by the cluster metadata at epoch {}: {}; keeping the view of epoch {}", metadata.epoch(),
                    e.getMessage(), view.epoch());
            return;
        }
        MembershipView before = view;
        view = next;
        if (!before.sameLayout(next)) {
            LOG.info("members at epoch {}: {}", next.epoch(), next.states());
            for (var listener : listeners) {
                try {
                    listener.accept(before, next);
                } catch (RuntimeException e) {
                    LOG.error("a listener of the membership failed on epoch {}", next.epoch(), e);
                }
            }
        }
    }

    private static String fingerprintOf(List<ClusterNode> nodes) {
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
        return "ClusterNodes{self=" + self + ", view=" + view.states() + '}';
    }
}
