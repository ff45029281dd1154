package io.ringkv.node;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ringkv repair}: starts an anti-entropy round on one node now and, with {@code --wait},
 * prints its progress until it is over. Exit code 0 when the round compared every peer, 1 when
 * the node could not be asked or a peer could not be compared.
 *
 * <p>This is a terminal program, so it writes to stdout directly.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
        description = "Start an anti-entropy round on a node now: it compares its data with every peer and sends what they lack.")
final class RepairCommand implements Callable<Integer> {
    private static final Pattern FIELD = Pattern.compile("\"(\\w+)\":(\\w+)");

    @Spec
    CommandSpec spec;

    @Option(names = "--node", required = true, paramLabel = "URL", description = "The node to run the round, e.g. http://127.0.0.1:8080 (https://... for a TLS cluster).")
    String node;

    @Option(names = "--wait", description = "Wait for the round to finish, printing its progress.")
    boolean await;

    @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
            description = "Run N rounds, each started when the previous one finished (needs --wait): load for "
                    + "benchmarks and soak tests, from one process (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--timeout", defaultValue = "PT10M", paramLabel = "DURATION",
            description = "Longest wait with --wait, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--cluster-secret-file", paramLabel = "FILE",
            description = "The cluster's secret file (repair requests are internal, so they must prove it); without it "
                    + "$" + ClusterSecret.ENVIRONMENT_VARIABLE + " is read.")
    Path secretFile;

    @Option(names = "--tls-trust", paramLabel = "FILE", description = TrustFlag.DESCRIPTION)
    Path tlsTrust;

    @Override
    public Integer call() throws InterruptedException {
        URI uri;
        try {
            uri = URI.create(node.replaceAll("/+$", "") + InternalProtocol.REPAIR_PATH);
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IllegalArgumentException("not an http://host:port or https://host:port URL");
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--node " + node + ": " + e.getMessage());
        }
        if (rounds < 1 || (rounds > 1 && !await)) {
            throw new ParameterException(spec.commandLine(), "--rounds must be at least 1, and more than 1 needs --wait");
        }
        ClusterSecret secret = secret();
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        try (HttpClient http = TrustFlag.apply(builder, tlsTrust, spec.commandLine()).build()) {
            NodeIdentity target = identityOf(http, uri);
            InternalAuth auth = new InternalAuth(secret, "ringkv-repair", target.topology(), System::currentTimeMillis);
            for (int round = 1; round <= rounds; round++) {
                int code = round(new SignedCalls(http, auth, uri, target.id()));
                if (code != 0) {
                    return code;
                }
            }
            return 0;
        } catch (IOException e) {
            System.out.println("ringkv repair: cannot reach " + node + ": " + e);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
    }

    /** Requests one round and, with --wait, follows it to its end; the exit code it earns. */
    private int round(SignedCalls calls) throws IOException, InterruptedException {
        SignedCalls.Answer started = calls.send("POST");
        if (started.status() != 202) {
            System.out.println("ringkv repair: " + node + " answered " + started.status() + ": " + started.body().strip());
            return ChaosCommand.EXIT_VIOLATIONS;
        }
        long before = field(started.body(), "roundsCompletedBefore");
        System.out.println("ringkv repair: round requested on " + node);
        if (!await) {
            return 0;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        String lastPrinted = "";
        while (System.nanoTime() < deadline) {
            SignedCalls.Answer status = calls.send("GET");
            String body = status.body().strip();
            if (!body.equals(lastPrinted)) {
                System.out.println("  " + body);
                lastPrinted = body;
            }
            if (status.status() == 200 && field(body, "roundsCompleted") > before && !body.contains("\"running\":true")) {
                long failed = field(body, "peersFailed");
                System.out.println("ringkv repair: round done in " + field(body, "lastRoundMillis") + " ms, "
                        + field(body, "bucketsDiffering") + " buckets differed, " + failed + " peers not reached");
                return failed == 0 ? 0 : ChaosCommand.EXIT_VIOLATIONS;
            }
            Thread.sleep(200);
        }
        System.out.println("ringkv repair: the round did not finish within " + timeout);
        return ChaosCommand.EXIT_VIOLATIONS;
    }

    private ClusterSecret secret() {
        try {
            if (secretFile != null) {
                return ClusterSecret.fromFile(secretFile);
            }
            String fromEnvironment = System.getenv(ClusterSecret.ENVIRONMENT_VARIABLE);
            if (fromEnvironment != null && !fromEnvironment.isBlank()) {
                return ClusterSecret.of(fromEnvironment);
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "the cluster secret: " + e.getMessage());
        }
        throw new ParameterException(spec.commandLine(), "repair requests are internal: pass --cluster-secret-file FILE or set $"
                + ClusterSecret.ENVIRONMENT_VARIABLE);
    }

    /** The node's id as its cluster knows it (requests must name it) and its topology fingerprint. */
    private record NodeIdentity(String id, String topology) {
    }

    /** From the "node" and "topology" fields of the node's {@code /v0/status}. */
    private static NodeIdentity identityOf(HttpClient http, URI repair) throws IOException, InterruptedException {
        URI status = repair.resolve("/v0/status");
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        java.util.Optional<String> topology = JsonText.stringField(response.body(), "topology");
        java.util.Optional<String> id = JsonText.stringField(response.body(), "node");
        if (topology.isEmpty() || id.isEmpty()) {
            throw new IOException(status + " names no topology (a one-node cluster has no anti-entropy): " + response.body().strip());
        }
        try {
            return new NodeIdentity(ClusterNode.parse(id.get()).id(), topology.get());
        } catch (IllegalArgumentException e) {
            throw new IOException(status + " names the node as " + id.get() + ": " + e.getMessage(), e);
        }
    }

    private static long field(String json, String name) {
        Matcher matcher = FIELD.matcher(json);
        while (matcher.find()) {
            if (matcher.group(1).equals(name)) {
                try {
                    return Long.parseLong(matcher.group(2));
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
