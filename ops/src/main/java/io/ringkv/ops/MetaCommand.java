package io.ringkv.ops;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ringkv meta}: changes of the cluster metadata (its Raft log), asked of one node, which
 * passes them to the group's leader. The requests are internal, so they prove the cluster secret.
 */
@Command(name = "meta", mixinStandardHelpOptions = true, subcommands = MetaCommand.SetReplicationFactor.class,
        description = "Change the cluster metadata (kept in a Raft log on the nodes). 'ringkv status' shows it.")
public final class MetaCommand implements Callable<Integer> {

    /** Exit code when the change was refused or not made. */
    public static final int EXIT_NOT_CHANGED = 1;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }

    @Command(name = "set-replication-factor", mixinStandardHelpOptions = true,
            description = "Set the replication factor kept in the metadata, at most the number of members. Every "
                    + "node places keys by it as it applies the change. A higher factor's new owners get their keys from "
                    + "anti-entropy rounds; under a lower one each node runs a cleanup by itself, which hands the copies "
                    + "it no longer owns to their owners and drops them. Exit code 1 when refused or when no majority of "
                    + "the metadata voters answered.")
    static final class SetReplicationFactor implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "N", description = "Copies of each key, 1 to the number of members.")
        int factor;

        @Mixin
        InternalCallOptions target;

        @Override
        public Integer call() throws InterruptedException {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String base = target.base();
            URI uri = target.endpoint(InternalProtocol.META_REPLICATION_FACTOR_PATH);
            ClusterSecret secret = target.secret();
            try (HttpClient http = target.httpClient()) {
                // Longer than the node's Raft client retries without a majority (about 10 s), so its 503 arrives.
                SignedCalls.Answer answer = target.signedCalls(http, uri, secret, "ringkv-meta", Duration.ofSeconds(30))
                        .send("POST", Integer.toString(factor).getBytes(StandardCharsets.US_ASCII));
                if (answer.status() != 200) {
                    err.println("ringkv meta: " + base + " answered " + answer.status() + ": " + answer.body().strip());
                    err.flush();
                    return EXIT_NOT_CHANGED;
                }
                out.println("replication factor " + factor + " at metadata epoch "
                        + JsonText.numberField(answer.body(), "epoch").map(Double::longValue).orElse(-1L)
                        + "; every node places keys by it as it applies the entry (a lower factor: each node then cleans up)");
                out.flush();
                return 0;
            } catch (IOException e) {
                err.println("ringkv meta: cannot reach " + base + ": " + e);
                err.flush();
                return EXIT_NOT_CHANGED;
            }
        }
    }
}
