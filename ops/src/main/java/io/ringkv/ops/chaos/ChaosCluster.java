package io.ringkv.ops.chaos;

import io.ringkv.ops.NodeProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The node processes of a chaos run, with the faults a nemesis can inflict on one of them:
 * SIGKILL and restart, SIGSTOP and SIGCONT, a wiped data directory, and (with the nodes in
 * network namespaces) a partition from the other nodes.
 *
 * <p>Threading: the nemesis thread inflicts faults; {@link #healAll} and {@link #close} run after
 * it stopped. Not thread-safe otherwise.
 */
final class ChaosCluster implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(10);

    private final Path root;
    private final List<String> urls;
    private final List<List<String>> serveArgs = new ArrayList<>();
    private final NodeProcess[] nodes;
    private final boolean[] paused;
    private final boolean[] isolated;
    private final Duration[] clockOffsets;
    /** The step each running node's clock has taken ({@link #stepClock}); zero when none. */
    private final Duration[] clockSteps;
    private final NetworkNamespaces namespaces;
    private final PrintStream logSink;
    /** The node {@link Fault#MEMBERSHIP} adds and removes; null without that fault. */
    private SpareMember spare;

    /**
     * @param ports     one per node, free on 127.0.0.1
     * @param extraArgs more {@code serve} flags for every node
     * @param logSink   where the nodes' output goes, each line prefixed with the node's name
     */
    ChaosCluster(Path root, List<Integer> ports, List<String> extraArgs, PrintStream logSink) {
        this(root, ports, null, extraArgs, logSink);
    }

    /**
     * @param namespaces when not null, node i runs in its namespace at its address there (and
     *                   {@link #isolate} works); the caller closes them after this cluster
     */
    ChaosCluster(Path root, List<Integer> ports, NetworkNamespaces namespaces, List<String> extraArgs, PrintStream logSink) {
        this.root = root;
        this.logSink = logSink;
        this.namespaces = namespaces;
        List<String> hosts = NetworkNamespaces.hosts(namespaces, ports.size());
        List<String> nodeUrls = new ArrayList<>();
        for (int i = 0; i < ports.size(); i++) {
            nodeUrls.add("http://" + hosts.get(i) + ":" + ports.get(i));
        }
        this.urls = List.copyOf(nodeUrls);
        this.nodes = new NodeProcess[ports.size()];
        this.paused = new boolean[ports.size()];
        this.isolated = new boolean[ports.size()];
        this.clockOffsets = new Duration[ports.size()];
        java.util.Arrays.fill(clockOffsets, Duration.ZERO);
        this.clockSteps = new Duration[ports.size()];
        java.util.Arrays.fill(clockSteps, Duration.ZERO);
        for (int i = 0; i < ports.size(); i++) {
            List<String> args = new ArrayList<>(List.of("--host", hosts.get(i), "--port", ports.get(i).toString(),
                    "--data", dataDir(i).toString(), "--cluster", String.join(",", urls)));
            // Restarts are faults here, and the history checks answers, not latency: a warm-up
            // would only make every restart (and the run) longer.
            args.addAll(List.of("--warm-up", "PT0S"));
            // Every node's clock can step while it runs (Fault.JUMP): the node re-reads this file.
            args.addAll(List.of("--clock-offset-file-for-tests", clockFile(i).toString()));
            args.addAll(extraArgs);
            serveArgs.add(List.copyOf(args));
        }
    }

    /**
     * Keeps a port for a node that joins and leaves ({@link Fault#MEMBERSHIP}), started with
     * {@code extraArgs} (which name the cluster secret file {@code secretFile}).
     */
    void addSpare(int port, List<String> extraArgs, Path secretFile) {
        List<String> args = new ArrayList<>(List.of("--warm-up", "PT0S"));
        args.addAll(extraArgs);
        spare = new SpareMember(root.resolve("spare"), port, args, secretFile, logSink);
    }

    /** The spare node joins through node 0 (or the first node running); returns once it is normal. */
    void joinSpare() throws IOException, InterruptedException {
        requireSpare().join(firstRunning());
    }

    /** The spare node leaves; returns once its process exited. */
    void removeSpare() throws IOException, InterruptedException {
        requireSpare().leave();
    }

    private SpareMember requireSpare() {
        if (spare == null) {
            throw new IllegalStateException("MEMBERSHIP needs the spare node the run keeps for it");
        }
        return spare;
    }

    private String firstRunning() {
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null && nodes[i].isAlive() && !paused[i]) {
                return urls.get(i);
            }
        }
        return urls.getFirst();
    }

    private NodeProcess process(int node) {
        List<String> prefix = namespaces == null ? List.of() : namespaces.prefix(node);
        List<String> args = serveArgs.get(node);
        if (!clockOffsets[node].isZero()) {
            args = new ArrayList<>(args);
            args.addAll(List.of("--clock-offset-for-tests", clockOffsets[node].toString()));
        }
        return new NodeProcess("node-" + node, prefix, args, logSink);
    }

    /** Cuts the node off from every other node; clients still reach it. */
    void isolate(int node) throws IOException {
        if (namespaces == null) {
            throw new IllegalStateException("partitions need the nodes in network namespaces");
        }
        namespaces.isolate(node);
        isolated[node] = true;
    }

    void rejoin(int node) throws IOException {
        if (isolated[node]) {
            namespaces.rejoin(node);
            isolated[node] = false;
        }
    }

    void startAll() throws IOException, InterruptedException {
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = process(i).start();
        }
        for (int i = 0; i < nodes.length; i++) {
            awaitReady(i);
        }
    }

    int size() {
        return nodes.length;
    }

    String url(int node) {
        return urls.get(node);
    }

    Path dataDir(int node) {
        return root.resolve("node-" + node);
    }

    /** SIGKILL: no flush, no graceful close. */
    void kill(int node) throws IOException, InterruptedException {
        resumeIfPaused(node);
        nodes[node].kill();
    }

    void restart(int node) throws IOException, InterruptedException {
        if (nodes[node].isAlive()) {
            return;
        }
        nodes[node] = process(node).start();
        awaitReady(node);
    }

    /** SIGKILL, then a restart whose wall clock is {@code offset} away from the machine's. */
    void restartSkewed(int node, Duration offset) throws IOException, InterruptedException {
        kill(node);
        clockOffsets[node] = offset;
        restart(node);
    }

    /** SIGKILL and a restart with the machine's clock, when the node's clock was shifted. */
    void restartWithTrueClock(int node) throws IOException, InterruptedException {
        if (!clockOffsets[node].isZero()) {
            kill(node);
            clockOffsets[node] = Duration.ZERO;
        }
        restart(node);
    }

    /**
     * Steps the running node's wall clock to {@code offset} from the machine's (zero: back to the
     * machine's clock); the node picks the step up within about 10 ms. A paused node takes it when
     * resumed.
     */
    void stepClock(int node, Duration offset) throws IOException {
        Path file = clockFile(node);
        Path next = file.resolveSibling(file.getFileName() + ".next");
        java.nio.file.Files.writeString(next, offset.toString());
        // Renamed into place, so the node never reads a half-written offset.
        java.nio.file.Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        clockSteps[node] = offset;
    }

    private Path clockFile(int node) {
        return root.resolve("node-" + node + ".clock");
    }

    /** SIGSTOP: the process stops in its tracks; its sockets stay open and fill up. */
    void pause(int node) throws IOException, InterruptedException {
        signal(node, "STOP");
        paused[node] = true;
    }

    void resume(int node) throws IOException, InterruptedException {
        signal(node, "CONT");
        paused[node] = false;
    }

    /** Kills the node and deletes its data directory: a replaced disk. {@link #restart} brings it back empty. */
    void wipe(int node) throws IOException, InterruptedException {
        kill(node);
        deleteRecursively(dataDir(node));
    }

    /** Every node running, not paused, linked to every other. */
    void healAll() throws IOException, InterruptedException {
        for (int i = 0; i < nodes.length; i++) {
            rejoin(i);
            resumeIfPaused(i);
            if (!clockSteps[i].isZero()) {
                stepClock(i, Duration.ZERO);
            }
            restartWithTrueClock(i);
        }
    }

    @Override
    public void close() {
        if (spare != null) {
            spare.stop();
        }
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] != null) {
                try {
                    resumeIfPaused(i);
                } catch (IOException | InterruptedException e) {
                    logSink.println("[chaos] cannot resume node-" + i + " before stopping it: " + e);
                }
                nodes[i].stop(STOP);
            }
        }
    }

    private void resumeIfPaused(int node) throws IOException, InterruptedException {
        if (paused[node]) {
            resume(node);
        }
    }

    private void awaitReady(int node) throws InterruptedException {
        if (!nodes[node].awaitReady(urls.get(node), READY)) {
            throw new IllegalStateException("node-" + node + " did not become ready at " + urls.get(node));
        }
    }

    private void signal(int node, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(nodes[node].pid()))
                .redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes());
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + signal + " node-" + node + " failed: " + output.strip());
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
