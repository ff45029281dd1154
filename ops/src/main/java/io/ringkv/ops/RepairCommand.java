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
public final class RepairCommand implements Callable<Integer> {
    /** Per request, until the answer's head arrives. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);

    @Spec
    CommandSpec spec;

    @Mixin
    InternalCallOptions target;

    @Option(names = "--wait", description = "Wait for the round to finish, printing its progress.")
    boolean await;

    @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
            description = "Run N rounds, each started when the previous one finished (needs --wait): load for "
                    + "benchmarks and soak tests, from one process (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--timeout", defaultValue = "PT10M", paramLabel = "DURATION",
            description = "Longest wait with --wait, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws InterruptedException {
        URI uri = target.endpoint(InternalProtocol.REPAIR_PATH);
        if (rounds < 1 || (rounds > 1 && !await)) {
            throw new ParameterException(spec.commandLine(), "--rounds must be at least 1, and more than 1 needs --wait");
        }
        ClusterSecret secret = target.secret();
        try (HttpClient http = target.httpClient()) {
            SignedCalls calls = target.signedCalls(http, uri, secret, "ringkv-repair", CALL_TIMEOUT);
            for (int round = 1; round <= rounds; round++) {
                int code = round(calls);
                if (code != 0) {
                    return code;
                }
            }
            return 0;
        } catch (IOException e) {
            System.out.println("ringkv repair: cannot reach " + target.base() + ": " + e);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
    }

    /** Requests one round and, with --wait, follows it to its end; the exit code it earns. */
    private int round(SignedCalls calls) throws IOException, InterruptedException {
        SignedCalls.Answer started = calls.send("POST");
        if (started.status() != 202) {
            System.out.println("ringkv repair: " + target.base() + " answered " + started.status() + ": " + started.body().strip());
            return ChaosCommand.EXIT_VIOLATIONS;
        }
        long before = field(started.body(), "roundsCompletedBefore");
        System.out.println("ringkv repair: round requested on " + target.base());
        if (!await) {
            return 0;
        }
        Optional<String> done = new BackgroundRunFollower(calls, "roundsCompleted").awaitRunAfter(before, timeout);
        if (done.isEmpty()) {
            System.out.println("ringkv repair: the round did not finish within " + timeout);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
        String body = done.get();
        long failed = field(body, "peersFailed");
        System.out.println("ringkv repair: round done in " + field(body, "lastRoundMillis") + " ms, "
                + field(body, "bucketsDiffering") + " buckets differed, " + failed + " peers not reached");
        return failed == 0 ? 0 : ChaosCommand.EXIT_VIOLATIONS;
    }

    private static long field(String json, String name) {
        return BackgroundRunFollower.number(json, name);
    }
}
