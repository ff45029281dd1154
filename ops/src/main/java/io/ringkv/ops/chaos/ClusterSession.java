package io.ringkv.ops.chaos;

import io.ringkv.cluster.ClusterSecretFile;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A started {@link ChaosCluster} with what it needs around it: a cluster secret under the root and,
 * when partitions are wanted, the nodes' {@link NetworkNamespaces}, removed on {@link #close} and,
 * should the JVM exit first (Ctrl-C), by a shutdown hook.
 *
 * <p>Threading: open and close on one thread; {@link #cluster} as its own contract says.
 */
final class ClusterSession implements AutoCloseable {
    private final NetworkNamespaces namespaces;
    private final ChaosCluster cluster;
    private final Thread removeOnExit;

    private ClusterSession(NetworkNamespaces namespaces, ChaosCluster cluster, Thread removeOnExit) {
        this.namespaces = namespaces;
        this.cluster = cluster;
        this.removeOnExit = removeOnExit;
    }

    /**
     * Starts every node and waits until each is ready.
     *
     * @param partitions put each node in a network namespace of its own, so links can be cut
     * @throws IllegalStateException partitions are wanted and namespaces are unavailable (no root, no {@code ip})
     */
    static ClusterSession start(Path root, List<Integer> ports, boolean partitions, List<String> extraServeArgs,
                                PrintStream console) throws IOException, InterruptedException {
        return start(root, ports, partitions, false, extraServeArgs, console);
    }

    /** @param spare keep a node that joins and leaves ({@link Fault#MEMBERSHIP}) */
    static ClusterSession start(Path root, List<Integer> ports, boolean partitions, boolean spare, List<String> extraServeArgs,
                                PrintStream console) throws IOException, InterruptedException {
        NetworkNamespaces namespaces = null;
        if (partitions) {
            String unavailable = NetworkNamespaces.unavailableReason();
            if (unavailable != null) {
                throw new IllegalStateException("partitions need network namespaces: " + unavailable);
            }
            namespaces = NetworkNamespaces.create(ports.size());
            console.println("[chaos] nodes in network namespaces: " + namespaces);
        }
        NetworkNamespaces toRemove = namespaces;
        Thread removeOnExit = new Thread(() -> {
            if (toRemove != null) {
                toRemove.close();
            }
        }, "chaos-namespaces-cleanup");
        Runtime.getRuntime().addShutdownHook(removeOnExit);
        ChaosCluster cluster = null;
        try {
            List<String> serveArgs = new ArrayList<>(extraServeArgs);
            serveArgs.addAll(List.of("--cluster-secret-file",
                    ClusterSecretFile.create(root.resolve(ClusterSecretFile.NAME)).toString()));
            cluster = new ChaosCluster(root, ports, namespaces, serveArgs, console);
            if (spare) {
                cluster.addSpare(io.ringkv.ops.LocalPorts.free(1).getFirst(), serveArgs, root.resolve(ClusterSecretFile.NAME));
            }
            cluster.startAll();
            return new ClusterSession(namespaces, cluster, removeOnExit);
        } catch (IOException | InterruptedException | RuntimeException e) {
            new ClusterSession(namespaces, cluster, removeOnExit).close();
            throw e;
        }
    }

    ChaosCluster cluster() {
        return cluster;
    }

    /** Stops the nodes, then removes the namespaces. */
    @Override
    public void close() {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } finally {
            if (namespaces != null) {
                namespaces.close();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(removeOnExit);
            } catch (IllegalStateException shuttingDown) {
                // The JVM is exiting: the hook removes the namespaces.
            }
        }
    }
}
