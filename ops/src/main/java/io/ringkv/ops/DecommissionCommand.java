package io.ringkv.ops;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
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
public final class DecommissionCommand implements Callable<Integer> {
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
            // The other members, asked once the node stops answering whether it left.
            List<String> others = members(http, URI.create(target.base())).stream()
                    .filter(member -> !member.url().equals(ClusterNode.parse(target.base()).id()))
                    .map(MetadataTable.Member::url).toList();
            SignedCalls.Answer started = calls.send("POST");
            if (started.status() != 202) {
                System.out.println("ringkv decommission: " + target.base() + " answered " + started.status() + ": "
                        + started.body().strip());
                return ChaosCommand.EXIT_VIOLATIONS;
            }
            System.out.println("ringkv decommission: " + target.base() + " is leaving: " + started.body().strip());
            return noWait ? 0 : follow(http, calls, others);
        } catch (IOException e) {
            System.out.println("ringkv decommission: cannot reach " + target.base() + ": " + e);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
    }

    /** The members a node's status lists (empty when it lists none). */
    private static List<MetadataTable.Member> members(HttpClient http, URI node) throws IOException, InterruptedException {
        HttpResponse<String> status = http.send(HttpRequest.newBuilder(node.resolve("/v0/status")).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        return MetadataTable.parse(status.body()).map(MetadataTable::members).orElse(List.of());
    }

    /** How long a stopped node's members are asked whether it left, before the command says it did not. */
    private static final Duration LEFT_CHECK = Duration.ofSeconds(10);

    /** Prints each new phase until the node says {@code left} or stops answering after it drained. */
    private int follow(HttpClient http, SignedCalls calls, List<String> others) throws InterruptedException {
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
                // It stopped: between two polls it may have handed everything over and left. The
                // member asked may apply the entry that made it left a moment after it stopped, so
                // the members are asked again for a few seconds before the command says it did not.
                String self = ClusterNode.parse(target.base()).id();
                long askUntil = System.nanoTime() + LEFT_CHECK.toNanos();
                do {
                    for (String other : others) {
                        try {
                            boolean left = members(http, URI.create(other)).stream()
                                    .anyMatch(member -> member.url().equals(self) && member.state().equals("left"));
                            if (left) {
                                System.out.println("ringkv decommission: " + target.base() + " left the cluster and stopped ("
                                        + other + " lists it as left)");
                                return 0;
                            }
                            break; // one member that answers is enough for this round
                        } catch (IOException unreachable) {
                            // the next member
                        }
                    }
                    Thread.sleep(POLL.toMillis() / 2);
                } while (System.nanoTime() < askUntil);
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
