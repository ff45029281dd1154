package io.ringkv.ops;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ringkv abort --node URL}: rolls back the membership step that node runs. A node that is
 * leaving becomes {@code normal} again (what it handed over stays as extra copies, which a cleanup
 * drops); a node that is joining becomes {@code left} (the owners keep every key; stop it and
 * clear its data directory before it joins again). Exit code 0 when rolled back, 1 otherwise.
 *
 * <p>A joining node that cannot be reached (its machine is gone for good) is rolled back through
 * a live member ({@code --member URL}): the command reads the member's view of the node, and only
 * when it is {@code joining} asks the metadata to make it {@code left}. Without that, a join whose
 * node died for good held the cluster for ever: writes of the keys it would own kept going to it
 * (so each needed every owner that stays one), and no other join or decommission could start. A
 * leaving node is not rolled back so: started again, it goes on leaving; or it is replaced.
 *
 * <p>This is a terminal program, so it writes to stdout directly.
 */
@Command(name = "abort", mixinStandardHelpOptions = true,
        description = "Roll back the join or decommission a node is in the middle of.")
public final class AbortCommand implements Callable<Integer> {
    /** Until the answer's head arrives: the node waits for its steps to stop and for the metadata group. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(40);

    @Mixin
    InternalCallOptions target;

    @Option(names = "--member", paramLabel = "URL",
            description = "When the node cannot be reached (a joining node gone for good): a live member through which its "
                    + "join is rolled back. The node becomes left; the owners keep every key. A leaving node cannot be "
                    + "rolled back without it: start it again (it goes on leaving) or replace it.")
    String member;

    @Override
    public Integer call() throws InterruptedException {
        URI uri = target.endpoint(InternalProtocol.MEMBERSHIP_ABORT_PATH);
        URI through = member == null ? null : target.endpointOf("--member", member, InternalProtocol.META_MEMBER_STATE_PATH);
        ClusterSecret secret = target.secret();
        try (HttpClient http = target.httpClient()) {
            try {
                SignedCalls calls = target.signedCalls(http, uri, secret, "ringkv-abort", CALL_TIMEOUT);
                SignedCalls.Answer answer = calls.send("POST");
                System.out.println("ringkv abort: " + target.base() + " answered " + answer.status() + ": " + answer.body().strip());
                return answer.status() == 200 ? 0 : ChaosCommand.EXIT_VIOLATIONS;
            } catch (IOException e) {
                System.out.println("ringkv abort: cannot reach " + target.base() + ": " + e);
                if (through == null) {
                    System.out.println("ringkv abort: if that node was joining and is gone for good, roll its join back "
                            + "through a live member: add --member URL");
                    return ChaosCommand.EXIT_VIOLATIONS;
                }
            }
            return abortJoinThrough(http, through, secret);
        } catch (IOException e) {
            System.out.println("ringkv abort: cannot reach " + member + ": " + e);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
    }

    /** The node's join rolled back by {@code through}'s metadata, when that member names it joining. */
    private int abortJoinThrough(HttpClient http, URI through, ClusterSecret secret) throws IOException, InterruptedException {
        String node = target.base();
        Optional<MetadataTable.Member> known = memberNamed(http, through, node);
        if (known.isEmpty()) {
            System.out.println("ringkv abort: " + member + "'s metadata names no member at " + node + "; nothing changed");
            return ChaosCommand.EXIT_VIOLATIONS;
        }
        if (!known.get().state().equals("joining")) {
            System.out.println("ringkv abort: " + node + " is " + known.get().state() + ", not joining: only a join is rolled "
                    + "back without its node (a leaving node goes on leaving when started again; a dead member is replaced "
                    + "with ringkv replace); nothing changed");
            return ChaosCommand.EXIT_VIOLATIONS;
        }
        SignedCalls calls = target.signedCalls(http, through, secret, "ringkv-abort", CALL_TIMEOUT);
        SignedCalls.Answer answer = calls.send("POST", (known.get().id() + " left joining").getBytes(StandardCharsets.UTF_8));
        if (answer.status() != 200) {
            System.out.println("ringkv abort: " + member + " answered " + answer.status() + ": " + answer.body().strip());
            return ChaosCommand.EXIT_VIOLATIONS;
        }
        System.out.println("ringkv abort: " + node + "'s join rolled back through " + member + ": it is left; the owners keep "
                + "every key. Clear its data directory before it joins again.");
        return 0;
    }

    /** The member at {@code url} as {@code through}'s {@code /v0/status} names it. */
    private static Optional<MetadataTable.Member> memberNamed(HttpClient http, URI through, String url)
            throws IOException, InterruptedException {
        HttpResponse<String> status = http.send(HttpRequest.newBuilder(through.resolve("/v0/status"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return MetadataTable.parse(status.body()).stream().flatMap(table -> table.members().stream())
                .filter(m -> m.url().equals(url)).findFirst();
    }
}
