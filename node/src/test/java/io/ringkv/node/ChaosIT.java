package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.chaos.ChaosRun;
import io.ringkv.ops.chaos.Fault;
import io.ringkv.ops.chaos.NetworkNamespaces;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short chaos runs of the test pass: three node processes, a fixed seed, 30 s of faults
 * (SIGKILL/restart, SIGSTOP/SIGCONT, restarts with a skewed clock and clocks stepping while their
 * node runs; then partitions in network namespaces, wiped data and SIGKILL, skipped without root), then the history checker and a convergence check without
 * client traffic (up to 60 s). The long runs are {@code ringkv chaos}.
 */
class ChaosIT {
    private static final long SEED = 20261124L;
    /**
     * The clock run's seed: its schedule kills a node, steps a running node's clock 1.1 s ahead
     * (beyond the 500 ms bound) and restarts one with its clock 254 ms behind, within 30 s.
     */
    private static final long CLOCK_SEED = 20261165L;

    @Test
    @Timeout(300)
    void noAcknowledgedWriteIsLostUnderKillsPausesAndSkewedClocks(@TempDir Path root) throws Exception {
        String history = checkRun(root, List.of(Fault.KILL, Fault.PAUSE, Fault.SKEW, Fault.JUMP), CLOCK_SEED);
        assertThat("the seed's schedule steps a running node's clock", history, containsString("\"nemesis\":\"JUMP node-"));
    }

    @Test
    @Timeout(300)
    void noAcknowledgedWriteIsLostUnderPartitionsWipesAndKills(@TempDir Path root) throws Exception {
        String unavailable = NetworkNamespaces.unavailableReason();
        Assumptions.assumeTrue(unavailable == null, "skipped: " + unavailable);
        checkRun(root, List.of(Fault.PARTITION, Fault.WIPE, Fault.KILL), SEED);
    }

    /** @return the history file's text */
    private static String checkRun(Path root, List<Fault> faults, long seed) throws Exception {
        boolean echo = Boolean.getBoolean("ringkv.test.nodeLogs");
        PrintStream console = echo ? System.err : new PrintStream(OutputStream.nullOutputStream());
        Path history = root.resolve("history.jsonl");
        ChaosRun.Settings settings = new ChaosRun.Settings(root, LocalPorts.free(3), Duration.ofSeconds(30), seed,
                faults, 20, 4, 100, Duration.ofSeconds(60), List.of("--anti-entropy-interval", "PT5S"), history);

        ChaosRun.Result result = new ChaosRun(settings, console).run();

        assertThat("writes were acknowledged", result.verdict().counts().writesOk(), greaterThan(100));
        assertThat(result.verdict().lostWrites(), is(empty()));
        assertThat(result.verdict().phantomReads(), is(empty()));
        assertThat(result.verdict().unreadable(), is(empty()));
        if (!faults.contains(Fault.WIPE)) {
            assertThat(result.verdict().staleReads(), is(empty()));
        }
        assertThat("the history was written", Files.size(history), greaterThan(1000L));
        // Without client traffic: hints and anti-entropy (every 5 s here) bring every replica level.
        assertThat("diverged keys " + result.diverged(), result.converged(), is(true));
        return Files.readString(history);
    }
}
