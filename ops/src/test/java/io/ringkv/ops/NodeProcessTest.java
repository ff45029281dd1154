package io.ringkv.ops;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The command line a node process runs: the user's {@code RINGKV_JVM_OPTS} reach the nodes
 * {@code up} starts (they did not: only {@code serve} started from the launcher took them), after
 * the options of our own, so that a user's flag wins over ours.
 */
class NodeProcessTest {

    @Test
    void userOptionsAreSplitAsTheLaunchersShellSplitsThem() {
        assertThat(NodeProcess.userJvmOptions("  -Xmx1g \t -XX:+UseSerialGC  "), equalTo(List.of("-Xmx1g", "-XX:+UseSerialGC")));
        assertThat(NodeProcess.userJvmOptions(""), is(empty()));
        assertThat(NodeProcess.userJvmOptions("   "), is(empty()));
        assertThat(NodeProcess.userJvmOptions(null), is(empty()));
    }

    @Test
    void userOptionsComeAfterOursAndBeforeTheMainClass() {
        List<String> command = NodeProcess.javaCommand("replace", List.of("--dead", "http://127.0.0.1:1"),
                List.of("-Xmx1g", "-XX:Tier3DelayOn=5"));
        int ours = command.indexOf("-XX:Tier3DelayOn=100000");
        int theirs = command.indexOf("-XX:Tier3DelayOn=5");
        int main = command.indexOf(NodeProcess.MAIN_CLASS);
        assertThat(ours, greaterThan(0));
        assertThat(theirs, greaterThan(ours));
        assertThat(command.indexOf("-Xmx1g"), greaterThan(command.indexOf("-Xmx512m")));
        assertThat(main, greaterThan(theirs));
        assertThat(command.subList(main + 1, command.size()), equalTo(List.of("replace", "--dead", "http://127.0.0.1:1")));
    }
}
