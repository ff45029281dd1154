package io.ringkv.node;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ringkv meta}: changes of the cluster metadata (its Raft log), asked of one node, which
 * passes them to the group's leader. The requests are internal, so they prove the cluster secret.
 */
@Command(name = "meta", mixinStandardHelpOptions = true, subcommands = MetaCommand.SetReplicationFactor.class,
        description = "Change the cluster metadata (kept in a Raft log on the nodes). 'ringkv status' shows it.")
final class MetaCommand implements Callable<Integer> {

    /** Exit code when the change was refused or not made. */
    static final int EXIT_NOT_CHANGED = 1;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }

    @Command(name = "set-replication-factor", mixinStandardHelpOptions = true,
            description = "Set the replication factor kept in the metadata, at most the number of members. Stored "
                    + "only for now: placement does not use it yet. Exit code 1 when refused or when no majority of "
                    + "the metadata voters answered.")
    static final class SetReplicationFactor implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "N", description = "Copies of each key, 1 to the number of members.")
        int factor;

        @Option(names = "--node", required = true, paramLabel = "URL",
                description = "Any node of the cluster, e.g. http://127.0.0.1:8080 (https://... for a TLS cluster).")
        String node;

        @Option(names = "--cluster-secret-file", paramLabel = "FILE",
                description = "The cluster's secret file (metadata changes are internal requests, so they must prove it); "
                        + "without it $" + ClusterSecret.ENVIRONMENT_VARIABLE + " is read.")
        Path secretFile;

        @Option(names = "--tls-trust", paramLabel = "FILE", description = TrustFlag.DESCRIPTION)
        Path tlsTrust;

        @Override
        public Integer call() throws InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String base = node.replaceAll("/+$", "");
            URI uri = URI.create(base + InternalProtocol.META_REPLICATION_FACTOR_PATH);
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new ParameterException(spec.commandLine(), "--node " + node + ": not an http://host:port or https://host:port URL");
            }
            ClusterSecret secret = secret();
            HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
            try (HttpClient http = TrustFlag.apply(builder, tlsTrust, spec.commandLine()).build()) {
                String[] identity = identityOf(http, uri);
                InternalAuth auth = new InternalAuth(secret, "ringkv-meta", identity[1], System::currentTimeMillis);
                // Longer than the node's Raft client retries without a majority (about 10 s), so its 503 arrives.
                SignedCalls.Answer answer = new SignedCalls(http, auth, uri, identity[0], Duration.ofSeconds(30))
                        .send("POST", Integer.toString(factor).getBytes(StandardCharsets.US_ASCII));
                if (answer.status() != 200) {
                    err.println("ringkv meta: " + base + " answered " + answer.status() + ": " + answer.body().strip());
                    err.flush();
                    return EXIT_NOT_CHANGED;
                }
                out.println("replication factor " + factor + " at metadata epoch "
                        + JsonText.numberField(answer.body(), "epoch").map(Double::longValue).orElse(-1L) + " (stored; placement does not use it yet)");
                out.flush();
                return 0;
            } catch (IOException e) {
                err.println("ringkv meta: cannot reach " + base + ": " + e);
                err.flush();
                return EXIT_NOT_CHANGED;
            }
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
            throw new ParameterException(spec.commandLine(), "metadata changes are internal requests: pass "
                    + "--cluster-secret-file FILE or set $" + ClusterSecret.ENVIRONMENT_VARIABLE);
        }

        /**
         * The node's id and topology fingerprint, from the {@code node} and {@code topology} fields of
         * its {@code /v0/status}: internal requests name their receiver and carry its node list's.
         */
        private static String[] identityOf(HttpClient http, URI target) throws IOException, InterruptedException {
            URI status = target.resolve("/v0/status");
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            String topology = JsonText.stringField(response.body(), "topology")
                    .orElseThrow(() -> new IOException(status + " names no topology: " + response.body().strip()));
            String id = JsonText.stringField(response.body(), "node")
                    .orElseThrow(() -> new IOException(status + " names no node: " + response.body().strip()));
            try {
                return new String[] {ClusterNode.parse(id).id(), topology};
            } catch (IllegalArgumentException e) {
                throw new IOException(status + " names the node as " + id + ": " + e.getMessage(), e);
            }
        }
    }
}
