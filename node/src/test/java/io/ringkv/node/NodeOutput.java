package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What a node process prints from its start until it is stopped, once it served. */
final class NodeOutput {
    private NodeOutput() {
    }

    /**
     * Starts a one-node process on a free port with its data under {@code root}, waits until it
     * serves, stops it, and returns its output lines without the process-name prefix.
     */
    static List<String> untilServingThenStopped(Path root, String... extraArgs) throws Exception {
        int port = LocalPorts.free(1).get(0);
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--data", root.resolve("d").toString()));
        args.addAll(List.of(extraArgs));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        NodeProcess node = new NodeProcess("n", args, new PrintStream(out, true, StandardCharsets.UTF_8)).start();
        try {
            assertThat(node.awaitReady("http://127.0.0.1:" + port, Duration.ofSeconds(60)), is(true));
        } finally {
            node.stop(Duration.ofSeconds(10));
        }
        Thread.sleep(200); // the pump thread copies the last lines after the exit
        return out.toString(StandardCharsets.UTF_8).lines().map(line -> line.substring("[n] ".length())).toList();
    }
}
