package io.ringkv.node;

import io.ringkv.net.tls.PemFileException;
import io.ringkv.ops.NodeProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * The node processes behind {@code ringkv up}: starts them, waits until each is ready, stops them.
 *
 * <p>Threading: {@link #start} and {@link #awaitAllExited} on the main thread; {@link #stop} from
 * the shutdown hook (idempotent, synchronized against a concurrent start).
 */
final class LocalCluster {
    private static final Duration READY_DEADLINE = Duration.ofSeconds(60);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(15);

    private final String host;
    private final Path data;
    private final List<Integer> ports;
    private final List<String> urls;
    private final Path secretFile;
    /** Null for http nodes. */
    private final SelfSignedCertificate tls;
    /** The token file every node checks requests against; null for none. */
    private final Path authFile;
    private final PrintStream out;
    /** {@code serve --replication-factor} for every node; null for the default. */
    private final Integer replicationFactor;
    /** Conditional writes on every node, or ({@code serve --no-conditional-writes}) on none, so that any node answers alike. */
    private final boolean conditionalWrites;
    private final List<NodeProcess> nodes = new ArrayList<>();

    /**
     * @param secretFile the cluster secret every node reads; null for one node
     * @param tls        the certificate every node serves https with; null for http
     * @param authFile   the token file every node checks requests against ({@code serve --auth-file}); null for none
     * @param replicationFactor every node's {@code --replication-factor}; null for the default
     * @param conditionalWrites  false gives every node {@code --no-conditional-writes}
     */
    LocalCluster(String host, Path data, List<Integer> ports, List<String> urls, Path secretFile,
                 SelfSignedCertificate tls, Path authFile, Integer replicationFactor,
                 boolean conditionalWrites, PrintStream out) {
        this.replicationFactor = replicationFactor;
        this.conditionalWrites = conditionalWrites;
        this.host = host;
        this.authFile = authFile;
        this.secretFile = secretFile;
        this.tls = tls;
        this.data = data;
        this.ports = ports;
        this.urls = urls;
        this.out = out;
    }

    /** @return false (after stopping whatever started) when a node failed to come up */
    boolean start() throws IOException, InterruptedException {
        SSLContext trust;
        try {
            trust = tls == null ? null : tls.trust();
        } catch (PemFileException e) {
            throw new IOException("the certificate made for the nodes cannot be read: " + e.getMessage(), e);
        }
        synchronized (nodes) {
            for (int i = 0; i < ports.size(); i++) {
                nodes.add(new NodeProcess("node-" + (i + 1), serveArgs(i), out).start());
            }
        }
        for (int i = 0; i < nodes.size(); i++) {
            if (!nodes.get(i).awaitReady(urls.get(i), READY_DEADLINE, trust)) {
                out.println("ringkv: " + nodes.get(i).name() + " did not become ready at " + urls.get(i)
                        + " (see its log above); stopping the cluster");
                stop();
                return false;
            }
        }
        return true;
    }

    private List<String> serveArgs(int index) {
        List<String> args = new ArrayList<>(List.of("--host", host, "--port", Integer.toString(ports.get(index)),
                "--data", data.resolve("node-" + (index + 1)).toString(),
                "--cluster", String.join(",", urls)));
        if (secretFile != null) {
            args.addAll(List.of("--cluster-secret-file", secretFile.toString()));
        }
        if (tls != null) {
            args.addAll(List.of("--tls-cert", tls.certificate().toString(), "--tls-key", tls.key().toString()));
        }
        if (authFile != null) {
            args.addAll(List.of("--auth-file", authFile.toString()));
        }
        if (replicationFactor != null) {
            args.addAll(List.of("--replication-factor", replicationFactor.toString()));
        }
        if (!conditionalWrites) {
            args.add("--no-conditional-writes");
        }
        return args;
    }

    /** The nodes' process ids, in node order (for {@code kill -HUP} after a token file change). */
    List<Long> pids() {
        synchronized (nodes) {
            return nodes.stream().map(NodeProcess::pid).toList();
        }
    }

    void awaitAllExited() throws InterruptedException {
        for (NodeProcess node : nodes) {
            int code = node.waitFor();
            if (code != 0 && !node.stopRequested()) {
                out.println("ringkv: " + node.name() + " exited with code " + code);
            }
        }
    }

    void stop() {
        synchronized (nodes) {
            nodes.parallelStream().forEach(node -> node.stop(STOP_DEADLINE));
        }
    }
}
