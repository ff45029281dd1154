package io.ringkv.node;

import io.ringkv.cluster.ClusterSecretFile;
import io.ringkv.node.access.AccessScope;
import io.ringkv.node.access.Grant;
import io.ringkv.node.access.TokenFile;
import io.ringkv.node.access.TokenFileException;
import io.ringkv.node.dashboard.Dashboard;
import io.ringkv.ops.BearerToken;
import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.TokenOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

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

    @Option(names = "--auth", description = "Check tokens: write an admin token (scopes read, write, admin) to "
            + "DIR/" + UpCommand.AUTH_FILE + ", start every node with --auth-file, and print the token.")
    boolean auth;

    /** The token file of {@code up --auth}, under the data directory. */
    static final String AUTH_FILE = "auth.tokens";
    /** The name of the token {@code up --auth} makes; made again, replacing the last one, at every start. */
    static final String ADMIN_TOKEN_NAME = "up-admin";

    @Option(names = "--tls", description = "Serve https: make a self-signed certificate with openssl in DIR/tls "
            + "(valid a year, for the host, localhost and 127.0.0.1) and give it to every node.")
    boolean tls;

    @Option(names = "--replication-factor", paramLabel = "N",
            description = "Copies of each key, 1..--nodes, given to every node (serve --replication-factor; default: 3, "
                    + "or every node of a smaller cluster).")
    Integer replicationFactor;

    @Option(names = "--conditional-writes", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Serve conditional writes (If-Match, If-None-Match, If-Unmodified-Since on PUT/DELETE) on every "
                    + "node (on by default); --no-conditional-writes gives every node serve --no-conditional-writes.")
    boolean conditionalWrites = true;

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || nodes > NODES_MAX) {
            throw new ParameterException(spec.commandLine(), "--nodes must be between 1 and " + NODES_MAX + ", got " + nodes);
        }
        if (replicationFactor != null && (replicationFactor < 1 || replicationFactor > nodes)) {
            throw new ParameterException(spec.commandLine(), "--replication-factor must be between 1 and --nodes ("
                    + nodes + "), got " + replicationFactor);
        }
        if (basePort != null && (basePort < 1 || basePort + nodes - 1 > 65535)) {
            throw new ParameterException(spec.commandLine(), "--base-port " + basePort + " leaves no room for " + nodes + " nodes");
        }
        List<String> urls = addresses();
        List<Integer> ports = UpAddresses.ports(urls);
        Path secret = nodes > 1 ? ClusterSecretFile.create(data.resolve(ClusterSecretFile.NAME)) : null;
        SelfSignedCertificate certificate;
        try {
            certificate = tls ? SelfSignedCertificate.create(data.resolve("tls"), host) : null;
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "--tls: " + e.getMessage());
        }
        Path authFile = auth ? data.resolve(AUTH_FILE) : null;
        String adminToken;
        try {
            adminToken = auth ? newAdminToken(authFile) : null;
        } catch (TokenFileException e) {
            throw new ParameterException(spec.commandLine(), "--auth: " + e.getMessage());
        }
        LocalCluster cluster = new LocalCluster(host, data, ports, urls, secret, certificate, authFile,
                replicationFactor, conditionalWrites, System.out);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.stop();
            stopped.countDown();
        }, "ringkv-up-shutdown"));
        if (!cluster.start()) {
            return Main.EXIT_CANNOT_START;
        }
        printWelcome(urls, certificate, adminToken, cluster.pids());
        cluster.awaitAllExited();
        return 0;
    }

    /**
     * The nodes' URLs: the ones an earlier {@code up} recorded in the data directory (a node's URL
     * is its identity in the cluster metadata, so a restart must keep it), else new ones, recorded.
     *
     * @throws ParameterException when the flags or the ports in use rule out the recorded URLs
     */
    private List<String> addresses() throws IOException {
        Optional<List<String>> recorded;
        try {
            recorded = UpAddresses.read(data);
        } catch (IOException e) {
            throw new ParameterException(spec.commandLine(), "cannot read the addresses an earlier up recorded: " + e.getMessage()
                    + "; give a new --data for a new cluster");
        }
        if (recorded.isPresent()) {
            List<String> urls = recorded.get();
            Optional<String> why = UpAddresses.mismatch(urls, nodes, host, tls, basePort, data);
            if (why.isPresent()) {
                throw new ParameterException(spec.commandLine(), why.get());
            }
            List<Integer> ports = UpAddresses.ports(urls);
            for (int i = 0; i < ports.size(); i++) {
                if (!LocalPorts.isFree(host, ports.get(i))) {
                    throw new ParameterException(spec.commandLine(), "port " + ports.get(i) + " of node-" + (i + 1) + " (recorded in "
                            + data.resolve(UpAddresses.NAME) + " at the cluster's first start: the nodes keep their addresses) "
                            + "is in use; is an earlier up on " + data + " still running? Stop what holds it, or give a new --data "
                            + "for a new cluster");
                }
            }
            return urls;
        }
        if (Files.exists(data.resolve("node-1"))) {
            throw new ParameterException(spec.commandLine(), data.resolve("node-1") + " holds a node's data, but " + data
                    + " has no " + UpAddresses.NAME + " with the addresses its cluster was started on (an up older than that file "
                    + "made it); give a new --data for a new cluster, or start those nodes with serve on their old ports");
        }
        List<Integer> ports = basePort != null ? LocalPorts.consecutive(basePort, nodes) : LocalPorts.free(nodes);
        String scheme = tls ? "https" : "http";
        List<String> urls = ports.stream().map(p -> scheme + "://" + host + ":" + p).toList();
        UpAddresses.write(data, urls);
        return urls;
    }

    /**
     * A new admin token (read, write, admin) in {@code file}, replacing the one an earlier
     * {@code up --auth} made there (its token was shown once and is gone); other lines are kept.
     */
    static String newAdminToken(Path file) throws TokenFileException {
        String token = BearerToken.generate();
        TokenFile.replace(file, new Grant(ADMIN_TOKEN_NAME, EnumSet.allOf(AccessScope.class), null), BearerToken.sha256(token));
        return token;
    }

    /** @param adminToken the token of {@code --auth}, or null without it */
    private void printWelcome(List<String> urls, SelfSignedCertificate certificate, String adminToken, List<Long> pids) {
        String first = urls.getFirst();
        // What every curl line needs: the certificate to trust, and the token (from the variable the welcome sets).
        String curlFlags = (certificate == null ? "" : "--curlFlags " + certificate.certificate().toAbsolutePath() + " ")
                + (adminToken == null ? "" : "-H \"Authorization: Bearer $" + TokenOption.ENVIRONMENT_VARIABLE + "\" ");
        String trust = certificate == null ? "" : " --tls-trust " + certificate.certificate().toAbsolutePath();
        List<String> lines = new ArrayList<>();
        lines.add("");
        lines.add("ringkv: " + urls.size() + " node(s) ready, data under " + data.toAbsolutePath());
        for (int i = 0; i < urls.size(); i++) {
            lines.add("  node-" + (i + 1) + "  " + urls.get(i));
        }
        lines.add("");
        lines.add("Dashboard (every node serves it; open it, kill a node, watch it go red):");
        lines.add("  " + first + Dashboard.ROOT + "/" + (adminToken == null ? "" : "  (log in with any user name and the token as password)"));
        lines.add("");
        if (adminToken != null) {
            Path file = data.resolve(AUTH_FILE).toAbsolutePath();
            lines.add("Access control is on: every request but GET /v0/status needs a token. The admin token (read, write,");
            lines.add("admin), shown this once (" + file + " holds only its SHA-256):");
            lines.add("  export " + TokenOption.ENVIRONMENT_VARIABLE + "=" + adminToken);
            lines.add("More tokens: ./ringkv token --auth-file " + file + " --name app --scopes read,write");
            lines.add("  then: kill -HUP " + pids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(" ")));
            lines.add("");
        }
        lines.add("Try:");
        lines.add("  curl -i " + curlFlags + "-X PUT --data-binary 'hello' '" + first + "/v0/entity?id=k1'");
        lines.add("  curl -i " + curlFlags + "'" + urls.getLast() + "/v0/entity?id=k1'");
        lines.add("  curl -i " + curlFlags + "'" + first + "/v0/entity?id=k1&replicas=1/" + urls.size() + "'");
        lines.add("  curl -i " + curlFlags + "-X DELETE '" + first + "/v0/entity?id=k1'");
        lines.add("  curl -s " + curlFlags + "'" + first + "/v0/entities?start=a&end=z'");
        lines.add("  curl -s " + curlFlags + "'" + first + "/v0/status'");
        lines.add("  curl -s " + curlFlags + "'" + first + "/metrics' | grep '^ringkv_requests_total'");
        lines.add("  ./ringkv status --node " + first + trust);
        if (urls.size() > 1) {
            Path secret = data.resolve(ClusterSecretFile.NAME).toAbsolutePath();
            lines.add("  ./ringkv repair --node " + first + " --wait --cluster-secret-file " + secret + trust);
            lines.add("");
            // A port next to the cluster's; any free one will do.
            int port = java.net.URI.create(urls.getLast()).getPort() + 1;
            String added = java.net.URI.create(urls.getLast()).getScheme() + "://" + host + ":" + port;
            String tls = certificate == null ? "" : " --tls-cert " + certificate.certificate().toAbsolutePath() + " --tls-key "
                    + certificate.key().toAbsolutePath();
            lines.add("Add a node (it joins, receives the keys it will own, then serves them), and take it out again:");
            lines.add("  ./ringkv serve --port " + port + " --data " + data.resolve("node-" + (urls.size() + 1)).toAbsolutePath()
                    + " --join " + first + " --cluster-secret-file " + secret + tls);
            lines.add("  ./ringkv decommission --node " + added + " --cluster-secret-file " + secret + trust);
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
