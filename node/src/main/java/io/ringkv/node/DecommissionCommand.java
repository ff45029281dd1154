package io.ringkv.node;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ringkv decommission --node URL}: the node leaves the cluster. It becomes {@code leaving},
 * hands every key it holds to the owners the key will have, says {@code leaving} on
 * {@code /v0/status} for its drain delay, becomes {@code left} and stops (see the cluster
 * module's {@code Decommission}). Without {@code --no-wait} this prints the progress until the
 * node has left: exit code 0 then, 1 when the cluster refused (the reason is printed) or the wait
 * timed out.
 *
 * <p>This is a terminal program, so it writes to stdout directly.
 */
@Command(name = "decommission", mixinStandardHelpOptions = true,
        description = "Take a node out of the cluster: it hands its keys to their new owners, then leaves and stops.")
final class DecommissionCommand implements Callable<Integer> {
    /** Per request, until the answer's head arrives: the first waits for the metadata group. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofSeconds(1);

    @Mixin
    InternalCallOptions target;

    @Option(names = "--no-wait", description = "Return once the node is leaving, without following it.")
    boolean noWait;

    @Option(names = "--timeout", defaultValue = "PT1H", paramLabel = "DURATION",
            description = "Longest wait for the node to leave, ISO-8601 (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() throws InterruptedException {
        URI uri = target.endpoint(InternalProtocol.DECOMMISSION_PATH);
        ClusterSecret secret = target.secret();
        try (HttpClient http = target.httpClient()) {
            SignedCalls calls = target.signedCalls(http, uri, secret, "ringkv-decommission", CALL_TIMEOUT);
            SignedCalls.Answer started = calls.send("POST");
            if (started.status() != 202) {
                System.out.println("ringkv decommission: " + target.base() + " answered " + started.status() + ": "
                        + started.body().strip());
                return ChaosCommand.EXIT_VIOLATIONS;
            }
            System.out.println("ringkv decommission: " + target.base() + " is leaving: " + started.body().strip());
            return noWait ? 0 : follow(calls);
        } catch (IOException e) {
            System.out.println("ringkv decommission: cannot reach " + target.base() + ": " + e);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
    }

    /** Prints each new phase until the node says {@code left} or stops answering after it drained. */
    private int follow(SignedCalls calls) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String lastPhase = "";
        while (System.nanoTime() < deadline) {
            Thread.sleep(POLL.toMillis());
            try {
                SignedCalls.Answer answer = calls.send("GET");
                String phase = JsonText.stringField(answer.body(), "phase").orElse("?");
                if (!phase.equals(lastPhase)) {
                    System.out.println("ringkv decommission: " + phase + " " + answer.body().strip());
                    lastPhase = phase;
                }
                if (phase.equals("left")) {
                    return 0;
                }
            } catch (ConnectException stopped) {
                if (lastPhase.equals("draining") || lastPhase.equals("left")) {
                    System.out.println("ringkv decommission: " + target.base() + " left the cluster and stopped");
                    return 0;
                }
                System.out.println("ringkv decommission: " + target.base() + " stopped before it left (" + stopped
                        + "); start it again and it takes up the steps where they were");
                return ChaosCommand.EXIT_VIOLATIONS;
            } catch (IOException e) {
                System.out.println("ringkv decommission: reading progress failed (" + e + "); trying again");
            }
        }
        System.out.println("ringkv decommission: the node did not leave within " + timeout);
        return ChaosCommand.EXIT_VIOLATIONS;
    }
}
