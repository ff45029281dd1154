package io.ringkv.ops;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalAuth;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of a command that sends internal requests to one node ({@code ringkv repair},
 * {@code ringkv meta ...}): which node, the cluster secret that signs the requests, and the
 * TLS options ({@link ClientTlsOptions}); and the steps every such command takes with them
 * (check the URL, read the secret, learn the node's id and topology from its status, sign).
 * A picocli mixin: the command's usage lists these options as its own.
 *
 * <p>Threading: used by the command's one thread.
 */
public final class InternalCallOptions {

    /** What the node answers in {@code /v0/status} that signed requests to it must name. */
    public record NodeIdentity(String id, String topology) {
    }

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--node", required = true, paramLabel = "URL",
            description = "The node to ask, e.g. http://127.0.0.1:8080 (https://... for a TLS cluster).")
    String node;

    @Option(names = "--cluster-secret-file", paramLabel = "FILE",
            description = "The cluster's secret file (this command's requests are internal, so they must prove it); "
                    + "without it $" + ClusterSecret.ENVIRONMENT_VARIABLE + " is read.")
    Path secretFile;

    @Mixin
    ClientTlsOptions tls;

    /** The node's URL without trailing slashes, as the command's messages name it. */
    String base() {
        return node.replaceAll("/+$", "");
    }

    /** The node's endpoint at {@code path}; a usage error unless {@code --node} is an http(s)://host:port URL. */
    URI endpoint(String path) {
        return endpointOf("--node", node, path);
    }

    /** {@code url}'s endpoint at {@code path}; a usage error naming {@code option} unless it is an http(s)://host:port URL. */
    URI endpointOf(String option, String url, String path) {
        try {
            URI uri = URI.create(url.replaceAll("/+$", "") + path);
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IllegalArgumentException("not an http://host:port or https://host:port URL");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), option + " " + url + ": " + e.getMessage());
        }
    }

    /** The cluster secret from {@code --cluster-secret-file} or the environment; a usage error without either. */
    ClusterSecret secret() {
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
        throw new ParameterException(spec.commandLine(), spec.name() + "'s requests are internal: pass "
                + "--cluster-secret-file FILE or set $" + ClusterSecret.ENVIRONMENT_VARIABLE);
    }

    /** A client that trusts {@code --tls-trust} when given; the caller closes it. */
    HttpClient httpClient() {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        return tls.apply(builder).build();
    }

    /**
     * Calls to {@code endpoint}, signed with the secret for the node behind it as its
     * {@code /v0/status} names it ({@code node} and {@code topology}): internal requests name their
     * receiver and carry its node list's fingerprint.
     *
     * @param secret  from {@link #secret()}, read before any connection so that its absence is a usage error
     * @param sender  how the requests name their sender, e.g. {@code ringkv-repair}
     * @param timeout per request, until the answer's head arrives
     */
    SignedCalls signedCalls(HttpClient http, URI endpoint, ClusterSecret secret, String sender, Duration timeout)
            throws IOException, InterruptedException {
        NodeIdentity target = identityOf(http, endpoint);
        InternalAuth auth = new InternalAuth(secret, sender, target.topology(), System::currentTimeMillis);
        return new SignedCalls(http, auth, endpoint, target.id(), timeout);
    }

    public static NodeIdentity identityOf(HttpClient http, URI endpoint) throws IOException, InterruptedException {
        URI status = endpoint.resolve("/v0/status");
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        Optional<String> topology = JsonText.stringField(response.body(), "topology");
        Optional<String> id = JsonText.stringField(response.body(), "node");
        if (topology.isEmpty() || id.isEmpty()) {
            throw new IOException(status + " names no topology (a one-node cluster takes no internal requests): "
                    + response.body().strip());
        }
        try {
            return new NodeIdentity(ClusterNode.parse(id.get()).id(), topology.get());
        } catch (IllegalArgumentException e) {
            throw new IOException(status + " names the node as " + id.get() + ": " + e.getMessage(), e);
        }
    }
}
