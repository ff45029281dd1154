package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import io.ringkv.ops.StatusCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ringkv status} against a 3-node cluster of separate processes: all up, then one killed. */
class StatusCommandIT {
    private static final long WAIT_MILLIS = 60_000;

    @TempDir
    Path root;

    private ProcessCluster cluster;

    @BeforeEach
    void start() throws Exception {
        cluster = new ProcessCluster(root, 3);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void listsEveryNodeAndExitsNonZeroOnceOneIsDown() throws Exception {
        for (int i = 0; i < 10; i++) {
            assertThat(cluster.put(0, "k" + i, "v", "2/3").statusCode(), is(201));
        }
        Run all = status();
        assertThat(all.output, all.exitCode, is(0));
        for (int node = 0; node < 3; node++) {
            assertThat(all.output, all.row(node), matchesPattern(".*\\s+up\\s+.*"));
        }
        assertThat(all.output, all.row(0), containsString(" self "));
        assertThat("disk used is shown", all.row(0), matchesPattern(".*\\d+\\.\\d (KiB|MiB)$"));

        cluster.kill(2);
        Run oneDown = status();
        assertThat(oneDown.output, oneDown.exitCode, is(StatusCommand.EXIT_NOT_ALL_UP));
        assertThat(oneDown.output, oneDown.row(2), matchesPattern(".*\\s+down\\s+.*"));
        assertThat(oneDown.output, oneDown.row(1), matchesPattern(".*\\s+up\\s+.*"));

        // Node 0 notices too (its calls and probes fail), and says so in the table's third column.
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        while (!new String(RawHttp.get(cluster.port(0), "/v0/status").body(), StandardCharsets.UTF_8)
                .contains("{\"node\":\"" + cluster.url(2) + "\",\"state\":\"down\"")) {
            assertThat("node 0 sees node 2 down in time", System.currentTimeMillis() < deadline, is(true));
            Thread.sleep(100);
        }
        Run seen = status();
        assertThat(seen.output, seen.row(2), matchesPattern(".*\\s+down\\s+down \\d+s.*"));
    }

    @Test
    void anUnreachableNodeIsAnErrorWithAMessage() throws Exception {
        cluster.kill(0);
        Run run = status();
        assertThat(run.exitCode, is(StatusCommand.EXIT_NOT_ALL_UP));
        assertThat(run.errors, containsString("cannot reach " + cluster.url(0)));
    }

    private Run status() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out), new PrintWriter(err), "status", "--node", cluster.url(0), "--interval", "PT0.2S");
        return new Run(code, out.toString(), err.toString());
    }

    private final class Run {
        final int exitCode;
        final String output;
        final String errors;

        Run(int exitCode, String output, String errors) {
            this.exitCode = exitCode;
            this.output = output;
            this.errors = errors;
        }

        /** The table row of node {@code i}. */
        String row(int i) {
            for (String line : output.split("\n")) {
                if (line.startsWith(cluster.url(i) + " ")) {
                    return line;
                }
            }
            throw new AssertionError("no row for " + cluster.url(i) + " in:\n" + output + errors);
        }
    }
}
