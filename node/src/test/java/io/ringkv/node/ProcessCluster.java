package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecretFile;
import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * Nodes as separate OS processes on 127.0.0.1, for cluster tests: start, SIGKILL, restart on
 * the same port and data directory, and plain HTTP calls to any node.
 */
final class ProcessCluster implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(60);
    private static final Duration PEERS_UP = Duration.ofSeconds(15);
    private static final boolean ECHO_LOGS = Boolean.getBoolean("ringkv.test.nodeLogs");

    private final Path root;
    private final List<Integer> ports;
    private final List<String> urls;
    private final NodeProcess[] nodes;
    private final HttpClient client;
    /** Null for an http cluster; for an https one, what the test's client trusts. */
    private final SSLContext trust;

    private final List<String> extraArgs;
    private final java.util.Map<Integer, List<String>> nodeArgs;

    ProcessCluster(Path root, int size) throws Exception {
        this(root, size, List.of());
    }

    /** @param extraArgs more {@code serve} flags for every node */
    ProcessCluster(Path root, int size, List<String> extraArgs) throws Exception {
        this(root, size, extraArgs, java.util.Map.of());
    }

    /**
     * @param extraArgs   more {@code serve} flags for every node
     * @param nodeArgs    more flags for some nodes, by index (e.g. a skewed clock)
     */
    ProcessCluster(Path root, int size, List<String> extraArgs, java.util.Map<Integer, List<String>> nodeArgs) throws Exception {
        this(root, size, extraArgs, nodeArgs, null);
    }

    /**
     * An https cluster when {@code trust} is not null: {@code extraArgs} must give every node its
     * TLS flags ({@code --tls-cert}, {@code --tls-key}), and {@code trust} verifies the nodes'
     * certificates for the test's own requests.
     */
    ProcessCluster(Path root, int size, List<String> extraArgs, java.util.Map<Integer, List<String>> nodeArgs,
                   SSLContext trust) throws Exception {
        this.root = root;
        this.extraArgs = extraArgs;
        this.nodeArgs = nodeArgs;
        this.trust = trust;
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2));
        if (trust != null) {
            builder.sslContext(trust);
        }
        this.client = builder.build();
        this.ports = LocalPorts.free(size);
        String scheme = trust == null ? "http" : "https";
        this.urls = ports.stream().map(p -> scheme + "://127.0.0.1:" + p).toList();
        this.nodes = new NodeProcess[size];
        try {
            for (int i = 0; i < size; i++) {
                nodes[i] = launch(i);
            }
            for (int i = 0; i < size; i++) {
                awaitReady(i);
            }
        } catch (Exception | AssertionError notStarted) {
            // The test never gets this cluster to close: stop what started, or the nodes outlive the run.
            close();
            throw notStarted;
        }
        awaitPeersUp(PEERS_UP);
    }

    /**
     * Waits, at most {@code deadline}, until every node says each of its peers is {@code up} (its
     * peer probe reached it), so that a test's first replicated request does not pay for the nodes'
     * first connections to each other against a one-second replica timeout. Nodes now serve at once
     * in a new cluster (no warm-up), and on a loaded two-core machine those first connections took
     * longer than that. Gives up quietly: a test that starts a node its peers cannot reach judges
     * that itself.
     */
    private void awaitPeersUp(Duration deadline) throws Exception {
        long end = System.nanoTime() + deadline.toNanos();
        for (int i = 0; i < nodes.length; i++) {
            while (System.nanoTime() < end) {
                try {
                    String status = send(i, "GET", "/v0/status", null).body();
                    long up = java.util.regex.Pattern.compile("\\{\"node\":\"[^\"]*\",\"state\":\"up\"").matcher(status)
                            .results().count();
                    if (up >= nodes.length - 1) {
                        break;
                    }
                } catch (java.io.IOException notAnswering) {
                    // polled again until the deadline
                }
                Thread.sleep(100);
            }
        }
    }

    private NodeProcess launch(int i) throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", ports.get(i).toString(),
                "--data", root.resolve("node-" + i).toString(), "--cluster", String.join(",", urls),
                "--cluster-secret-file", secretFile().toString()));
        if (!extraArgs.contains("--warm-up")) {
            args.addAll(List.of("--warm-up", "PT0S")); // WarmUpIT tests the warm-up; here it would only cost time
        }
        if (!extraArgs.contains("--replica-timeout")) {
            args.addAll(List.of("--replica-timeout", "PT1S"));
        }
        args.addAll(extraArgs);
        args.addAll(nodeArgs.getOrDefault(i, List.of()));
        PrintStream sink = ECHO_LOGS ? System.err : new PrintStream(OutputStream.nullOutputStream());
        return new NodeProcess("node-" + i, args, sink).start();
    }

    private void awaitReady(int i) throws InterruptedException {
        assertThat("node-" + i + " ready", nodes[i].awaitReady(urls.get(i), READY, trust), is(true));
    }

    /** Waits until node {@code i}'s process exits by itself (at most {@code deadline}, then fails) and returns its status. */
    int awaitExit(int i, Duration deadline) throws InterruptedException {
        long until = System.nanoTime() + deadline.toNanos();
        while (nodes[i].isAlive()) {
            assertThat("node-" + i + " exited within " + deadline, System.nanoTime() < until, is(true));
            Thread.sleep(100);
        }
        return nodes[i].waitFor();
    }

    void kill(int i) throws InterruptedException {
        nodes[i].kill();
    }

    /** Whether node {@code i}'s process runs (it was not killed or stopped, or was started again since). */
    boolean alive(int i) {
        return nodes[i].isAlive();
    }

    /**
     * As at the start: waits, boundedly and quietly, until every node sees each of its peers up
     * (for a test that restarted nodes, before the next relies on them).
     */
    void awaitPeersUp() throws Exception {
        awaitPeersUp(PEERS_UP);
    }

    /** SIGSTOP: the node hangs with its sockets open, as in a long GC pause. */
    void pause(int i) throws Exception {
        signal(i, "STOP");
    }

    void resume(int i) throws Exception {
        signal(i, "CONT");
    }

    /** Sends {@code signal} (e.g. HUP, STOP) to node {@code i}'s process. */
    void signal(int i, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(nodes[i].pid())).start();
        assertThat("kill -" + signal, kill.waitFor(), is(0));
    }

    void restart(int i) throws Exception {
        nodes[i] = launch(i);
        awaitReady(i);
    }

    /** The secret every node of this cluster reads (made on first use). */
    Path secretFile() throws java.io.IOException {
        return ClusterSecretFile.create(root.resolve(ClusterSecretFile.NAME));
    }

    int port(int i) {
        return ports.get(i);
    }

    String url(int i) {
        return urls.get(i);
    }

    int size() {
        return nodes.length;
    }

    HttpResponse<String> put(int node, String key, String value, String replicas) throws Exception {
        return send(node, "PUT", "/v0/entity?id=" + key + replicasParam(replicas), value);
    }

    HttpResponse<String> get(int node, String key, String replicas) throws Exception {
        return send(node, "GET", "/v0/entity?id=" + key + replicasParam(replicas), null);
    }

    HttpResponse<String> delete(int node, String key, String replicas) throws Exception {
        return send(node, "DELETE", "/v0/entity?id=" + key + replicasParam(replicas), null);
    }

    HttpResponse<String> send(int node, String method, String target, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(urls.get(node) + target)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body)).build();
        return client.send(request, BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** Keys this node stores itself, from its local range, in order. */
    List<String> localKeys(int node, String start, String end) throws Exception {
        RawHttp.Reply reply = RawHttp.get(ports.get(node), "/v0/entities?start=" + start + "&end=" + end + "&local=true");
        assertThat(reply.status(), is(200));
        List<String> keys = new ArrayList<>();
        for (byte[] chunk : reply.chunks()) {
            String text = new String(chunk, StandardCharsets.UTF_8);
            keys.add(text.substring(0, text.indexOf('\n')));
        }
        return keys;
    }

    private static String replicasParam(String replicas) {
        return replicas == null ? "" : "&replicas=" + replicas;
    }

    @Override
    public void close() {
        client.close();
        // Every node shuts down at once: each waits on its own threads (its metadata group's Ratis stop among them).
        for (NodeProcess node : nodes) {
            if (node != null) {
                node.requestStop();
            }
        }
        for (NodeProcess node : nodes) {
            if (node != null) {
                node.stop(Duration.ofSeconds(10));
            }
        }
    }
}
