package io.ringkv.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code ringkv up}: a local cluster of separate node processes, for trying ringkv out and for
 * benchmarks. Prints the URLs, the dashboard's and ready-to-paste curl commands, streams every node's log with a
 * {@code [node-i]} prefix, and stops all nodes (SIGTERM, then SIGKILL after a deadline) on Ctrl-C.
 *
 * <p>This is a terminal program, so it writes to stdout directly.
 */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Start a local cluster of separate node processes; Ctrl-C stops them all.")
final class UpCommand implements Callable<Integer> {
    static final int NODES_MAX = 16;

    @Spec
    CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "3", description = "Number of nodes, 1..16 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--data", defaultValue = "data", description = "Parent data directory; node i uses DIR/node-i (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address the nodes bind (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--base-port", paramLabel = "PORT",
            description = "Node i listens on PORT+i-1. Default: free ports chosen by the OS.")
    Integer basePort;

    @Option(names = "--tls", description = "Serve https: make a self-signed certificate with openssl in DIR/tls "
            + "(valid a year, for the host, localhost and 127.0.0.1) and give it to every node.")
    boolean tls;

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || nodes > NODES_MAX) {
            throw new ParameterException(spec.commandLine(), "--nodes must be between 1 and " + NODES_MAX + ", got " + nodes);
        }
        if (basePort != null && (basePort < 1 || basePort + nodes - 1 > 65535)) {
            throw new ParameterException(spec.commandLine(), "--base-port " + basePort + " leaves no room for " + nodes + " nodes");
        }
        List<Integer> ports = basePort != null ? LocalPorts.consecutive(basePort, nodes) : LocalPorts.free(nodes);
        String scheme = tls ? "https" : "http";
        List<String> urls = ports.stream().map(p -> scheme + "://" + host + ":" + p).toList();
        Files.createDirectories(data);
        Path secret = nodes > 1 ? ClusterSecretFile.create(data.resolve(ClusterSecretFile.NAME)) : null;
        SelfSignedCertificate certificate;
        try {
            certificate = tls ? SelfSignedCertificate.create(data.resolve("tls"), host) : null;
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--tls: " + e.getMessage());
        }
        LocalCluster cluster = new LocalCluster(host, data, ports, urls, secret, certificate, System.out);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.stop();
            stopped.countDown();
        }, "ringkv-up-shutdown"));
        if (!cluster.start()) {
            return Main.EXIT_CANNOT_START;
        }
        printWelcome(urls, certificate);
        cluster.awaitAllExited();
        return 0;
    }

    private void printWelcome(List<String> urls, SelfSignedCertificate certificate) throws IOException {
        String first = urls.getFirst();
        String cacert = certificate == null ? "" : "--cacert " + certificate.certificate().toAbsolutePath() + " ";
        String trust = certificate == null ? "" : " --tls-trust " + certificate.certificate().toAbsolutePath();
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("ringkv: " + urls.size() + " node(s) ready, data under " + data.toAbsolutePath());
        for (int i = 0; i < urls.size(); i++) {
            lines.add("  node-" + (i + 1) + "  " + urls.get(i));
        }
        lines.add("");
        lines.add("Dashboard (every node serves it; open it, kill a node, watch it go red):");
        lines.add("  " + first + Dashboard.ROOT + "/");
        lines.add("");
        lines.add("Try:");
        lines.add("  curl -i " + cacert + "-X PUT --data-binary 'hello' '" + first + "/v0/entity?id=k1'");
        lines.add("  curl -i " + cacert + "'" + urls.getLast() + "/v0/entity?id=k1'");
        lines.add("  curl -i " + cacert + "'" + first + "/v0/entity?id=k1&replicas=1/" + urls.size() + "'");
        lines.add("  curl -i " + cacert + "-X DELETE '" + first + "/v0/entity?id=k1'");
        lines.add("  curl -s " + cacert + "'" + first + "/v0/entities?start=a&end=z'");
        lines.add("  curl -s " + cacert + "'" + first + "/v0/status'");
        lines.add("  curl -s " + cacert + "'" + first + "/metrics' | grep '^ringkv_requests_total'");
        lines.add("  ./ringkv status --node " + first + trust);
        if (urls.size() > 1) {
            Path secret = data.resolve(ClusterSecretFile.NAME).toAbsolutePath();
            lines.add("  ./ringkv repair --node " + first + " --wait --cluster-secret-file " + secret + trust);
            lines.add("");
            lines.add("Node-to-node requests are authenticated with the secret in " + secret + ".");
        }
        lines.add("");
        lines.add("Ctrl-C stops every node.");
        lines.add("");
        System.out.println(String.join(System.lineSeparator(), lines));
        System.out.flush();
    }
}
