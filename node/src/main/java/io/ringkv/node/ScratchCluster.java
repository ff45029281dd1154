package io.ringkv.node;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.ops.LocalPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Three nodes in this JVM, on loopback ports the OS picks and a temporary data directory that
 * {@link #close} deletes: a real replicated cluster (coordinator, authenticated internal plane
 * over h2c, replica side, RocksDB) whose only purpose is to run the node's code before it matters.
 * Its data and its secret never leave it.
 *
 * <p>Threading: open and close from one thread; {@link #joinAndLeave} from one thread at a time,
 * ended before {@link #close}.
 */
final class ScratchCluster implements AutoCloseable {
    static final int NODES = 3;

    /** How often {@link #joinAndLeave} looks at the joining node's progress. */
    private static final Duration POLL = Duration.ofMillis(50);

    private final Path data;
    private final List<Node> nodes = new ArrayList<>();
    private final List<String> urls;
    private final ClusterSecret secret;

    private ScratchCluster(Path data, List<String> urls, ClusterSecret secret) {
        this.data = data;
        this.urls = urls;
        this.secret = secret;
    }

    static ScratchCluster open() throws IOException, NodeStartException {
        Path data = Files.createTempDirectory("ringkv-warm-up");
        List<Integer> ports = LocalPorts.free(NODES);
        byte[] secret = new byte[32];
        ThreadLocalRandom.current().nextBytes(secret);
        ClusterSecret clusterSecret = ClusterSecret.of(Base64.getEncoder().encodeToString(secret));
        ScratchCluster cluster = new ScratchCluster(data, ports.stream().map(p -> "http://127.0.0.1:" + p).toList(), clusterSecret);
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

    /** The first three nodes' URLs (a node {@link #joinAndLeave} adds is not among them). */
    List<String> urls() {
        return urls;
    }

    /**
     * A fourth node joins through the first ({@code serve --join}); once it is a normal member it
     * is decommissioned, and this returns when it has left. Both steps run as they do between
     * processes: the join's request, the metadata's epochs, the writes that count the new node as
     * a pending replica, the hand-over streams, the former owners' version checks and cleanups.
     *
     * @throws TimeoutException when a step had not ended by {@code deadline} (System.nanoTime)
     * @throws NodeStartException when the node could not start or was not let join
     */
    void joinAndLeave(long deadline) throws NodeStartException, IOException, InterruptedException, TimeoutException {
        int port = LocalPorts.free(1).getFirst();
        CountDownLatch left = new CountDownLatch(1);
        Node joiner = Node.start(NodeConfig.singleNode(port, data.resolve("node-" + nodes.size()))
                .withJoin(urls.getFirst()).withSecret(secret), Duration.ZERO, left::countDown);
        nodes.add(joiner);
        while (!joiner.membershipProgress().phase().equals("done")) {
            awaitBefore(deadline, "the join of " + joiner.url() + " (" + joiner.membershipProgress().phase() + ")");
        }
        joiner.decommission();
        while (!left.await(POLL.toMillis(), TimeUnit.MILLISECONDS)) {
            awaitBefore(deadline, "the decommission of " + joiner.url() + " (" + joiner.membershipProgress().phase() + ")");
        }
        nodes.remove(joiner);
        joiner.close();
    }

    private static void awaitBefore(long deadline, String what) throws InterruptedException, TimeoutException {
        if (System.nanoTime() - deadline > 0) {
            throw new TimeoutException(what + " did not end in time");
        }
        Thread.sleep(POLL);
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
