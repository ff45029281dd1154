package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.NodeProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Nodes started by {@code ./ringkv serve} and nodes started by {@link NodeProcess} ({@code up},
 * {@code chaos}, the integration tests) run their JVMs with the same options: the launcher's
 * {@code NODE_JVM_OPTS} and {@link NodeProcess#JVM_OPTIONS} are one list written twice.
 */
class NodeJvmOptionsTest {

    @Test
    void theLauncherAndNodeProcessGiveNodesTheSameJvmOptions() throws Exception {
        String prefix = "NODE_JVM_OPTS=(";
        List<String> line = Files.readAllLines(Path.of("..", "ringkv")).stream()
                .filter(l -> l.startsWith(prefix)).toList();
        assertThat("one NODE_JVM_OPTS line in the launcher: " + line, line.size(), is(1));
        String list = line.get(0).substring(prefix.length(), line.get(0).lastIndexOf(')'));
        assertThat(Arrays.asList(list.trim().split("\\s+")), is(NodeProcess.JVM_OPTIONS));
    }
}
