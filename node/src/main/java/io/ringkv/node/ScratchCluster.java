package io.ringkv.node;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.ops.LocalPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * Three nodes in this JVM, on loopback ports the OS picks and a temporary data directory that
 * {@link #close} deletes: a real replicated cluster (coordinator, authenticated internal plane
 * over h2c, replica side, RocksDB) whose only purpose is to run the node's code before it matters.
 * Its data and its secret never leave it.
 *
 * <p>Threading: open and close from one thread.
 */
final class ScratchCluster implements AutoCloseable {
    static final int NODES = 3;

    private final Path data;
    private final List<Node> nodes = new ArrayList<>();
    private final List<String> urls;

    private ScratchCluster(Path data, List<String> urls) {
        this.data = data;
        this.urls = urls;
    }

    static ScratchCluster open() throws IOException, NodeStartException {
        Path data = Files.createTempDirectory("ringkv-warm-up");
        List<Integer> ports = LocalPorts.free(NODES);
        ScratchCluster cluster = new ScratchCluster(data, ports.stream().map(p -> "http://127.0.0.1:" + p).toList());
        byte[] secret = new byte[32];
        ThreadLocalRandom.current().nextBytes(secret);
        ClusterSecret clusterSecret = ClusterSecret.of(Base64.getEncoder().encodeToString(secret));
        try {
            for (int i = 0; i < NODES; i++) {
                cluster.nodes.add(Node.start(NodeConfig.singleNode(ports.get(i), data.resolve("node-" + i))
                        .withCluster(cluster.urls).withSecret(clusterSecret)));
            }
        } catch (NodeStartException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    List<String> urls() {
        return urls;
    }

    @Override
    public void close() throws IOException {
        for (Node node : nodes) {
            node.close();
        }
        try (Stream<Path> paths = Files.walk(data)) {
            for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
