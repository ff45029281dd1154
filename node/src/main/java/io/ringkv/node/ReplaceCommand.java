package io.ringkv.node;

import io.ringkv.cluster.ClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code ringkv replace --dead URL --node NEW_URL --join MEMBER [serve options]}: starts, in the
 * foreground, the node that takes a dead member's place. It is {@code serve --host H --port P
 * --join MEMBER --replace URL} with the host and port read from the new node's URL, so that the
 * command names both ends of the replacement the way an operator thinks of it; every other option
 * is serve's and passes through unchanged.
 *
 * <p>Threading: a picocli command, run once on the main thread.
 */
@Command(name = "replace", mixinStandardHelpOptions = true,
        description = {"Start the node that takes the place of a member that is down, in the foreground: the surviving "
                + "owners send it the dead member's keys, and once it is normal the dead member has left. Equivalent to "
                + "`serve --host H --port P --join MEMBER --replace DEAD_URL` with H and P from --node.",
                "Every other option is serve's (--data and --cluster-secret-file at least; see `ringkv serve --help`). "
                + "Stopped on the way, the node picks up the steps when started again with the same command."})
final class ReplaceCommand implements Callable<Integer> {
    /** Serve options this command sets itself from its own, refused when given beside them, and why. */
    private static final Map<String, String> DERIVED = Map.of(
            "--host", "the host and port come from --node",
            "--port", "the host and port come from --node",
            "--replace", "the member to replace is --dead",
            "--cluster", "the new node takes its member list from the cluster");

    @Spec
    CommandSpec spec;

    @Option(names = "--dead", required = true, paramLabel = "URL",
            description = "The member to replace, as the cluster knows it (its http://host:port). It must be down: a "
                    + "member that still answers is refused (decommission it instead).")
    String dead;

    @Option(names = "--node", required = true, paramLabel = "NEW_URL",
            description = "The new node's URL, http://host:port (https:// with --tls-cert and --tls-key): it listens "
                    + "on that host and port, and that URL becomes its identity in the cluster.")
    String node;

    @Option(names = "--join", required = true, paramLabel = "MEMBER[,MEMBER...]",
            description = "A live member to ask (several, comma-separated, are asked in turn).")
    String join;

    @Unmatched
    List<String> serveArgs = new ArrayList<>();

    @Override
    public Integer call() {
        return spec.parent().commandLine().getSubcommands().get("serve").execute(serveArguments().toArray(String[]::new));
    }

    /** The arguments of the equivalent {@code serve}; a usage error when the flags contradict each other. */
    List<String> serveArguments() {
        ClusterNode url = nodeUrl();
        for (String arg : serveArgs) {
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (DERIVED.containsKey(name)) {
                throw new ParameterException(spec.commandLine(), name + " is not taken by `ringkv replace`: " + DERIVED.get(name));
            }
        }
        boolean tls = serveArgs.stream().anyMatch(arg -> arg.equals("--tls-cert") || arg.startsWith("--tls-cert="));
        if (url.secure() != tls) {
            throw new ParameterException(spec.commandLine(), tls
                    ? "--node " + node + " is http, but --tls-cert makes the node serve https: write its URL with https://"
                    : "--node " + node + " is https: give the node's certificate and key with --tls-cert and --tls-key");
        }
        List<String> args = new ArrayList<>(List.of("--host", url.host(), "--port", Integer.toString(url.port()),
                "--join", join, "--replace", dead));
        args.addAll(serveArgs);
        return args;
    }

    /** The new node's URL, checked and normalised as the cluster names its members ({@link ClusterNode#parse}). */
    private ClusterNode nodeUrl() {
        ClusterNode parsed;
        try {
            parsed = ClusterNode.parse(node);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        // The port is the one the node binds: written out, never the scheme's default.
        if (!node.strip().matches("(?i)https?://.*:\\d+/?")) {
            throw usage("no port in " + node);
        }
        return parsed;
    }

    private ParameterException usage(String reason) {
        return new ParameterException(spec.commandLine(), "--node must be the new node's http://host:port or "
                + "https://host:port, with the port and nothing after it (" + reason + ")");
    }
}
