package io.ringkv.ops;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ringkv cleanup}: starts a cleanup on one node (it hands the records it holds but does not
 * own to their owners, then drops them, see the cluster module's {@code Cleanup}) and, with
 * {@code --wait}, prints its progress until it is over. Exit code 0 when the run is over and kept
 * nothing for an unreachable owner, 1 otherwise.
 *
 * <p>This is a terminal program, so it writes to stdout directly.
 */
@Command(name = "cleanup", mixinStandardHelpOptions = true,
        description = "Drop the records a node holds but does not own (after the replication factor went down, or writes "
                + "with an explicit 'from' above it), once their owners took them.")
public final class CleanupCommand implements Callable<Integer> {
    /** Per request, until the answer's head arrives. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    @Mixin
    InternalCallOptions target;

    @Option(names = "--wait", description = "Wait for the run to finish, printing its progress.")
    boolean await;

    @Option(names = "--timeout", defaultValue = "PT1H", paramLabel = "DURATION",
            description = "Longest wait with --wait, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws InterruptedException {
        URI uri = target.endpoint(InternalProtocol.CLEANUP_PATH);
        ClusterSecret secret = target.secret();
        try (HttpClient http = target.httpClient()) {
            SignedCalls calls = target.signedCalls(http, uri, secret, "ringkv-cleanup", CALL_TIMEOUT);
            SignedCalls.Answer started = calls.send("POST");
            if (started.status() != 202) {
                System.out.println("ringkv cleanup: " + target.base() + " answered " + started.status() + ": "
                        + started.body().strip());
                return ChaosCommand.EXIT_VIOLATIONS;
            }
            long before = number(started.body(), "runsCompletedBefore");
            System.out.println("ringkv cleanup: run requested on " + target.base());
            return await ? follow(calls, before) : 0;
        } catch (IOException e) {
            System.out.println("ringkv cleanup: cannot reach " + target.base() + ": " + e);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
    }

    private int follow(SignedCalls calls, long before) throws IOException, InterruptedException {
        Optional<String> done = new BackgroundRunFollower(calls, "runsCompleted").awaitRunAfter(before, timeout);
        if (done.isEmpty()) {
            System.out.println("ringkv cleanup: the run did not finish within " + timeout);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
        String body = done.get();
        System.out.println("ringkv cleanup: done in " + number(body, "lastRunMillis") + " ms, " + number(body, "dropped")
                + " records dropped, " + number(body, "kept") + " kept, " + number(body, "ownersFailed") + " owners not reached");
        return body.contains("\"error\"") || number(body, "ownersFailed") > 0 ? ChaosCommand.EXIT_VIOLATIONS : 0;
    }

    private static long number(String json, String name) {
        return BackgroundRunFollower.number(json, name);
    }
}
