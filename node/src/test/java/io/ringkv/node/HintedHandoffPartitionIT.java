package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.chaos.HandoffRun;
import io.ringkv.ops.chaos.NetworkNamespaces;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hinted handoff after a partition, in small: {@link HandoffRun} cuts one of three node processes
 * off (network namespaces) for 20 s while 50 writes/s go through the two others, with
 * anti-entropy out of the run, then heals it; the node must come to hold every acknowledged write,
 * read from its own copies only (no read that could repair). {@code ./ringkv bench --handoff} is
 * the full-size measurement. Skipped without root or {@code ip netns}. The wait is a generous
 * bound, not a timing claim.
 */
class HintedHandoffPartitionIT {

    @Test
    @Timeout(300)
    void aPartitionedNodeGetsEveryAcknowledgedWriteThroughHintsAlone(@TempDir Path root) throws Exception {
        String unavailable = NetworkNamespaces.unavailableReason();
        Assumptions.assumeTrue(unavailable == null, "skipped: " + unavailable);
        boolean echo = Boolean.getBoolean("ringkv.test.nodeLogs");
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        HandoffRun.Settings settings = new HandoffRun.Settings(root, LocalPorts.free(3), Duration.ofSeconds(3),
                Duration.ofSeconds(20), 50, 20261125L, Duration.ofSeconds(120));

        HandoffRun.Result result = new HandoffRun(settings, echo ? System.err : quiet, echo ? System.err : quiet).run();

        assertThat("writes acknowledged during the partition", result.ackedDuringPartition(), greaterThan(500L));
        assertThat("writes the partitioned node lacked at the heal", result.missingAtHeal(), greaterThan(500));
        assertThat("missing " + result.stillMissing() + " of " + result.expected(), result.caughtUp(), is(true));
        assertThat("anti-entropy rounds in the run", result.antiEntropyRounds(), is(0L));
    }
}
