package io.ringkv.ops;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * Follows a node's background run (an anti-entropy round for {@code ringkv repair}, a cleanup for
 * {@code ringkv cleanup}) through its status endpoint: prints each new status line and returns the
 * last one once the run asked for is over, or nothing when it was not over in time.
 *
 * <p>This serves terminal programs, so it writes to stdout directly. One caller at a time.
 */
final class BackgroundRunFollower {
    private static final Duration POLL = Duration.ofMillis(200);

    private final SignedCalls calls;
    private final String completedField;

    /** @param completedField the status's count of finished runs ({@code roundsCompleted}, {@code runsCompleted}) */
    BackgroundRunFollower(SignedCalls calls, String completedField) {
        this.calls = calls;
        this.completedField = completedField;
    }

    /** Polls until more than {@code completedBefore} runs are done and none runs, at most {@code timeout}. */
    Optional<String> awaitRunAfter(long completedBefore, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String lastPrinted = "";
        while (System.nanoTime() < deadline) {
            SignedCalls.Answer status = calls.send("GET");
            String body = status.body().strip();
            if (!body.equals(lastPrinted)) {
                System.out.println("  " + body);
                lastPrinted = body;
            }
            if (status.status() == 200 && number(body, completedField) > completedBefore && body.contains("\"running\":false")) {
                return Optional.of(body);
            }
            Thread.sleep(POLL.toMillis());
        }
        return Optional.empty();
    }

    /** A number field of a status line, -1 when it has none. */
    static long number(String json, String name) {
        return JsonText.numberField(json, name).map(Double::longValue).orElse(-1L);
    }
}
