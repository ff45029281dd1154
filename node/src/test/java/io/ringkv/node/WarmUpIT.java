package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

import io.ringkv.cluster.ClusterSecretFile;
import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --warm-up}: a node warms up only when a peer already serves (a node restarted into
 * a running cluster). Then it binds its port, runs its warm-up (answering {@code 503 starting}
 * meanwhile) and only then joins its cluster and serves, with the scratch cluster's own start and
 * stop lines kept out of the log. A node alone, or of a new cluster, serves at once. Each test
 * asserts the decision the node logs, not how long anything took.
 */
class WarmUpIT {
    private static final Duration READY = Duration.ofSeconds(90);

    @TempDir
    Path root;

    private final List<NodeProcess> started = new ArrayList<>();

    @AfterEach
    void stopNodes() {
        started.forEach(node -> node.stop(Duration.ofSeconds(10)));
    }

    @Test
    void aNodeAloneServesWithoutWarmingUp() throws Exception {
        List<String> lines = NodeOutput.untilServingThenStopped(root);
        assertThat(lines.toString(), indexOf(lines, "warm-up skipped: no serving peer (a one-node cluster)"), greaterThan(-1));
        assertThat(lines.toString(), indexOf(lines, "warmed up in"), is(-1));
        assertThat(lines.toString(), indexOf(lines, "serving (version"), greaterThan(-1));
    }

    @Test
    void theNodesOfANewClusterServeWithoutWarmingUp() throws Exception {
        List<Integer> ports = LocalPorts.free(2);
        List<String> urls = ports.stream().map(port -> "http://127.0.0.1:" + port).toList();
        Path secret = ClusterSecretFile.create(root.resolve("cluster.secret"));
        List<ByteArrayOutputStream> outputs = List.of(new ByteArrayOutputStream(), new ByteArrayOutputStream());
        for (int i = 0; i < 2; i++) {
            start("n" + i, ports.get(i), urls, secret, outputs.get(i));
        }
        for (int i = 0; i < 2; i++) {
            assertThat(started.get(i).awaitReady(urls.get(i), READY), is(true));
        }
        for (ByteArrayOutputStream output : outputs) {
            String log = output.toString(StandardCharsets.UTF_8);
            assertThat(log, containsString("warm-up skipped: no serving peer (a new cluster: "));
            assertThat(log, not(containsString("warmed up in")));
        }
    }

    @Test
    void aNodeRestartedBesideAServingPeerWarmsUpForAtMostItsBound() throws Exception {
        List<Integer> ports = LocalPorts.free(2);
        List<String> urls = ports.stream().map(port -> "http://127.0.0.1:" + port).toList();
        Path secret = ClusterSecretFile.create(root.resolve("cluster.secret"));
        start("peer", ports.get(0), urls, secret, new ByteArrayOutputStream());
        assertThat(started.getFirst().awaitReady(urls.get(0), READY), is(true));
        awaitServing(urls.get(0), ServingPeers.SETTLED_SECONDS);

        ByteArrayOutputStream output = new ByteArrayOutputStream();
        NodeProcess restarted = start("restarted", ports.get(1), urls, secret, output, "--warm-up", "PT10S");
        assertThat(restarted.awaitReady(urls.get(1), READY), is(true));
        restarted.stop(Duration.ofSeconds(10));
        Thread.sleep(200); // the pump thread copies the last lines after the exit
        List<String> lines = output.toString(StandardCharsets.UTF_8).lines().toList();

        int listening = indexOf(lines, "HTTP server listening");
        int decided = indexOf(lines, "warming up for at most PT10S while " + urls.get(0) + " serve(s)");
        int warmed = indexOf(lines, "warmed up in");
        int serving = indexOf(lines, "serving (version");
        assertThat(lines.toString(), listening, greaterThan(-1));
        assertThat(lines.toString(), listening, lessThan(decided));
        assertThat(lines.toString(), decided, lessThan(warmed));
        assertThat(lines.toString(), warmed, lessThan(serving));
        assertThat("the warm-up answered requests, none failed: " + lines.get(warmed),
                lines.get(warmed).matches(".*: [1-9][0-9]* requests answered .*\\(0 failed\\).*"), is(true));
        assertThat("the scratch cluster's lines are not logged: " + lines,
                lines.stream().filter(line -> line.contains("serving (version")).count(), is(1L));
    }

    @Test
    void noWarmUpWithZero() throws Exception {
        List<String> lines = NodeOutput.untilServingThenStopped(root, "--warm-up", "PT0S");
        assertThat(lines.toString(), indexOf(lines, "warm-up skipped: --warm-up PT0S"), greaterThan(-1));
        assertThat(lines.toString(), indexOf(lines, "warmed up in"), is(-1));
        assertThat(lines.toString(), indexOf(lines, "serving (version"), greaterThan(-1));
    }

    private NodeProcess start(String name, int port, List<String> urls, Path secret, ByteArrayOutputStream output,
                              String... extraArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--data", root.resolve(name).toString(),
                "--cluster", String.join(",", urls), "--cluster-secret-file", secret.toString()));
        args.addAll(List.of(extraArgs));
        NodeProcess node = new NodeProcess(name, args, new PrintStream(output, true, StandardCharsets.UTF_8)).start();
        started.add(node);
        return node;
    }

    /** Polls the node's status until it has served for {@code seconds}: from then on its peers take it for a running cluster. */
    private static void awaitServing(String url, long seconds) throws Exception {
        Pattern uptime = Pattern.compile("\"servingSeconds\":([0-9]+)");
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpRequest status = HttpRequest.newBuilder(URI.create(url + "/v0/status")).build();
            for (int i = 0; i < 600; i++) {
                Matcher found = uptime.matcher(client.send(status, HttpResponse.BodyHandlers.ofString()).body());
                if (found.find() && Long.parseLong(found.group(1)) >= seconds) {
                    return;
                }
                Thread.sleep(100);
            }
        }
        throw new AssertionError(url + " did not report serving for " + seconds + " s within a minute");
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
