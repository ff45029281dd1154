package io.ringkv.cluster.member;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.InternalProtocol;
import io.ringkv.cluster.SignedCalls;
import java.io.IOException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cleanup run on another member, asked for and followed over the internal plane
 * ({@code POST} then {@code GET /internal/v0/cleanup}): the run that hands a joining node the
 * records it will own (what a member no longer owns once the join is done, it drops in a run of
 * its own: {@code OwnershipCleanups}). Each call
 * carries this node's metadata epoch, so the member runs under a view at least as new.
 *
 * <p>Threading: one per run, used by one thread (a membership step's), which it blocks while it
 * waits; never an event loop's.
 */
final class RemoteRun {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteRun.class);

    /** How often a run's status is read while it runs. */
    static final Duration POLL = Duration.ofMillis(250);

    private final SignedCalls calls;
    private final ClusterNode member;
    private long after = -1;
    private String lastStatus = "{}";

    RemoteRun(SignedCalls calls, ClusterNode member) {
        this.calls = calls;
        this.member = member;
    }

    /** Asks for a run; {@link #finished} tells when it is over. */
    void start() throws IOException, InterruptedException {
        SignedCalls.Answer answer = call("POST");
        if (answer.status() != 202) {
            throw new IOException(member.id() + " did not start a cleanup run: " + answer.status() + " " + answer.text());
        }
        after = longField(answer.text(), "runsCompletedBefore")
                .orElseThrow(() -> new IOException(member.id() + " answered a cleanup request without runsCompletedBefore"));
    }

    /**
     * Whether the run asked for is over; reads its status once. A member that runs nothing and
     * has completed no run past the one asked for was restarted since (its count of runs began
     * again, and the run asked for died with the process): the run is asked for again, or the
     * step would wait for it for good.
     */
    boolean finished() throws IOException, InterruptedException {
        SignedCalls.Answer answer = call("GET");
        if (answer.status() != 200) {
            throw new IOException(member.id() + " did not tell its cleanup status: " + answer.status() + " " + answer.text());
        }
        lastStatus = answer.text();
        if (longField(lastStatus, "runsCompleted").orElse(-1) > after) {
            return true;
        }
        if (lastStatus.contains("\"running\":false")) {
            LOG.info("{} runs no cleanup and completed none since the one asked for: it was restarted; asking again", member.id());
            start();
        }
        return false;
    }

    /** Why the finished run did not hand every record over, or null when it did. */
    String shortfall() {
        if (lastStatus.contains("\"error\"")) {
            return member.id() + "'s run failed: " + lastStatus;
        }
        if (longField(lastStatus, "ownersFailed").orElse(0) > 0 || longField(lastStatus, "kept").orElse(0) > 0) {
            return member.id() + "'s run could not hand every record over: " + lastStatus;
        }
        return null;
    }

    long handedOff() {
        return longField(lastStatus, "handedOff").orElse(0);
    }

    long bytesHandedOff() {
        return longField(lastStatus, "bytesHandedOff").orElse(0);
    }

    long scanned() {
        return longField(lastStatus, "scanned").orElse(0);
    }

    /** About how many records the run reads in all, as the member's store estimated at its start. */
    long toScan() {
        return longField(lastStatus, "toScan").orElse(0);
    }

    ClusterNode member() {
        return member;
    }

    private SignedCalls.Answer call(String method) throws IOException, InterruptedException {
        try {
            return calls.call(member.id(), method, InternalProtocol.CLEANUP_PATH, new byte[0], MembershipCalls.CALL_TIMEOUT)
                    .get(MembershipCalls.CALL_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(member.id() + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(member.id() + " did not answer within " + MembershipCalls.CALL_TIMEOUT, e);
        }
    }

    static OptionalLong longField(String json, String name) {
        Matcher matcher = Pattern.compile("\"" + Pattern.quote(name) + "\":(-?\\d{1,18})").matcher(json);
        return matcher.find() ? OptionalLong.of(Long.parseLong(matcher.group(1))) : OptionalLong.empty();
    }
}
