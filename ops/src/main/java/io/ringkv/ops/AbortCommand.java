package io.ringkv.ops;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.cluster.InternalProtocol;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code ringkv abort --node URL}: rolls back the membership step that node runs. A node that is
 * leaving becomes {@code normal} again (what it handed over stays as extra copies, which a cleanup
 * drops); a node that is joining becomes {@code left} (the owners keep every key; stop it and
 * clear its data directory before it joins again). Exit code 0 when rolled back, 1 otherwise.
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

    @Override
    public Integer call() throws InterruptedException {
        URI uri = target.endpoint(InternalProtocol.MEMBERSHIP_ABORT_PATH);
        ClusterSecret secret = target.secret();
        try (HttpClient http = target.httpClient()) {
            SignedCalls calls = target.signedCalls(http, uri, secret, "ringkv-abort", CALL_TIMEOUT);
            SignedCalls.Answer answer = calls.send("POST");
            System.out.println("ringkv abort: " + target.base() + " answered " + answer.status() + ": " + answer.body().strip());
            return answer.status() == 200 ? 0 : ChaosCommand.EXIT_VIOLATIONS;
        } catch (IOException e) {
            System.out.println("ringkv abort: cannot reach " + target.base() + ": " + e);
            return ChaosCommand.EXIT_VIOLATIONS;
        }
    }
}
