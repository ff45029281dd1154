package io.ringkv.node;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.ops.LocalPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
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
 * <p>Threading: open and close from one thread; {@link #joinReplaceAndLeave} from one thread at a time,
 * ended before {@link #close}.
 */
final class ScratchCluster implements AutoCloseable {
    static final int NODES = 3;

    /** How often {@link #joinReplaceAndLeave} looks at a joining node's progress. */
    private static final Duration POLL = Duration.ofMillis(50);
    /** How long a member is down before it is replaced: its peers store hints and mark it down meanwhile. */
    static final Duration DEAD_FOR = Duration.ofSeconds(1);

    private final Path data;
    private final List<Node> nodes = new ArrayList<>();
    private final List<String> urls;
    private final ClusterSecret secret;
    /** Data directories handed out so far (each node its own, never reused). */
    private int joinedSoFar = NODES;

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

    /** The first three nodes' URLs (the nodes {@link #joinReplaceAndLeave} adds are not among them). */
    List<String> urls() {
        return urls;
    }

    /**
     * The three membership steps, one after the other, with the first three nodes serving
     * throughout: a fourth node joins through the first ({@code serve --join}); once it is a normal
     * member it stops without leaving, and after {@link #DEAD_FOR} a fifth takes its place
     * ({@code --replace}); once that one is normal it is decommissioned, and this returns when it
     * has left. Each runs as between processes: the join's request, the metadata's epochs, the
     * writes that count a pending replica, hints for the dead member, the hand-over streams, the
     * former owners' version checks and cleanups.
     *
     * @throws TimeoutException when a step had not ended by {@code deadline} (System.nanoTime)
     * @throws NodeStartException when a node could not start or was not let join
     */
    void joinReplaceAndLeave(long deadline) throws NodeStartException, IOException, InterruptedException, TimeoutException {
        Node joined = startJoining(null, () -> { });
        awaitJoined(joined, deadline);
        nodes.remove(joined);
        joined.close();
        Thread.sleep(DEAD_FOR);
        CountDownLatch left = new CountDownLatch(1);
        Node replacement = startJoining(joined.url(), left::countDown);
        awaitJoined(replacement, deadline);
        replacement.decommission();
        while (!left.await(POLL.toMillis(), TimeUnit.MILLISECONDS)) {
            awaitBefore(deadline, "the decommission of " + replacement.url() + " (" + replacement.membershipProgress().phase() + ")");
        }
        nodes.remove(replacement);
        replacement.close();
    }

    /** A new node joining through the first, in place of {@code deadUrl} when not null. */
    private Node startJoining(String deadUrl, Runnable onLeft) throws NodeStartException, IOException {
        NodeConfig config = NodeConfig.singleNode(LocalPorts.free(1).getFirst(), data.resolve("node-" + joinedSoFar++))
                .withJoin(urls.getFirst()).withSecret(secret);
        Node node = Node.start(deadUrl == null ? config : config.withReplace(deadUrl), Duration.ZERO, onLeft);
        nodes.add(node);
        return node;
    }

    private static void awaitJoined(Node node, long deadline) throws InterruptedException, TimeoutException {
        while (!node.membershipProgress().phase().equals("done")) {
            awaitBefore(deadline, "the join of " + node.url() + " (" + node.membershipProgress().phase() + ")");
        }
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
