package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --warm-up}: the node binds its port, runs its warm-up (answering {@code 503
 * starting} meanwhile) and only then joins its cluster and serves; the scratch cluster's own
 * start and stop lines stay out of the log.
 */
class WarmUpIT {

    @TempDir
    Path root;

    @Test
    void aNodeWarmsUpAfterBindingAndBeforeServing() throws Exception {
        List<String> lines = NodeOutput.untilServingThenStopped(root, "--warm-up", "PT10S");
        int listening = indexOf(lines, "HTTP server listening");
        int warmed = indexOf(lines, "warmed up in");
        int serving = indexOf(lines, "serving (version");
        assertThat(lines.toString(), listening, greaterThan(-1));
        assertThat(lines.toString(), listening, lessThan(warmed));
        assertThat(lines.toString(), warmed, lessThan(serving));
        assertThat("the warm-up answered requests, none failed: " + lines.get(warmed),
                lines.get(warmed).matches(".*: [1-9][0-9]* requests answered .*\\(0 failed\\).*"), is(true));
        assertThat("the scratch cluster's lines are not logged: " + lines,
                lines.stream().filter(line -> line.contains("serving (version")).count(), is(1L));
    }

    @Test
    void noWarmUpWithZero() throws Exception {
        List<String> lines = NodeOutput.untilServingThenStopped(root, "--warm-up", "PT0S");
        assertThat(lines.toString(), indexOf(lines, "warmed up in"), is(-1));
        assertThat(lines.toString(), indexOf(lines, "serving (version"), greaterThan(-1));
    }

    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }
}
