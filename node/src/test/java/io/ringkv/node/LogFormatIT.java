package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.JsonText;
import java.nio.file.Path;
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

    private List<String> runNode(String... extraArgs) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--warm-up", "PT0S"));
        args.addAll(List.of(extraArgs));
        return NodeOutput.untilServingThenStopped(root, args.toArray(String[]::new));
    }
}
