package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.chaos.CasRun;
import io.ringkv.ops.chaos.ChaosRun;
import io.ringkv.ops.chaos.Fault;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short run of the compare-and-set chaos workload: three node processes, SIGKILL/restart and
 * SIGSTOP/SIGCONT for 30 s with a fixed seed, 4 keys each played in rounds by 3 writers through
 * the 3 nodes. No round may have two winners, and each winner's value must be read back.
 */
class CasChaosIT {
    private static final long SEED = 20261127L;

    @Test
    @Timeout(300)
    void noRoundHasTwoWinnersUnderKillsAndPauses(@TempDir Path root) throws Exception {
        boolean echo = Boolean.getBoolean("ringkv.test.nodeLogs");
        PrintStream console = echo ? System.err : new PrintStream(OutputStream.nullOutputStream());
        Path history = root.resolve("history.jsonl");
        ChaosRun.Settings settings = new ChaosRun.Settings(root, LocalPorts.free(3), Duration.ofSeconds(30), SEED,
                List.of(Fault.KILL, Fault.PAUSE), 4, 3, 1, Duration.ofSeconds(60), List.of(), history);

        CasRun.Result result = new CasRun(settings, console).run();

        assertThat(result.violations(), is(empty()));
        assertThat(result.doubleWinners(), is(0L));
        assertThat(result.lostWinners(), is(0L));
        assertThat("rounds were won", result.roundsWon(), greaterThan(0L));
        assertThat("the history was written", Files.size(history), greaterThan(100L));
    }
}
