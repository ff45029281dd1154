package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node process logs one line per event: readable text by default, JSON objects with --log-format json. */
class LogFormatIT {

    @TempDir
    Path root;

    @Test
    void jsonLinesCarryTheFormattedMessageAndLevel() throws Exception {
        List<String> lines = runNode("--log-format", "json");
        String serving = lines.stream().filter(line -> line.contains("serving (version")).findFirst()
                .orElseThrow(() -> new AssertionError("no serving line in " + lines));
        assertThat(serving, serving.startsWith("{") && serving.endsWith("}"), is(true));
        assertThat(serving, JsonText.stringField(serving, "level").orElse(""), is("INFO"));
        assertThat(serving, JsonText.stringField(serving, "loggerName").orElse(""), is(Node.class.getName()));
        assertThat(serving, JsonText.stringField(serving, "formattedMessage").orElse("").startsWith("node http://127.0.0.1:"),
                is(true));
        assertThat("every line is an object: " + lines, lines.stream().allMatch(line -> line.startsWith("{")), is(true));
        assertThat("the stop is logged: " + lines, lines.stream().anyMatch(line -> line.contains("stopped\"")), is(true));
    }

    @Test
    void textIsTheDefault() throws Exception {
        List<String> lines = runNode();
        assertThat(lines.toString(), lines.stream().anyMatch(line -> line.matches(".* INFO +\\[main\\] Node - node http://.* serving .*")),
                is(true));
    }

    /** Starts a node, waits until it serves, stops it, and returns its output lines without the process-name prefix. */
    private List<String> runNode(String... extraArgs) throws Exception {
        int port = LocalPorts.free(1).get(0);
        List<String> args = new java.util.ArrayList<>(List.of("--port", Integer.toString(port), "--data", root.resolve("d").toString()));
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
