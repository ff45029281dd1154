package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import io.ringkv.cluster.ClusterSecretFile;
import io.ringkv.ops.LocalPorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ringkv up}, stopped and started again on its data, as a user does: the nodes come back on
 * the addresses the cluster metadata knows them by, and serve what they held. Before the addresses
 * were kept, the second start chose new free ports; every node's metadata still named the old ones,
 * and every request failed ({@code 503} on PUT, {@code 504} on GET). A node started by hand on a
 * member's data under another address is refused for the same reason.
 */
@Timeout(240)
class UpRestartIT {
    private static final Pattern NODE_LINE = Pattern.compile("^\\s+node-\\d+\\s+(http://\\S+)$");

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aClusterStartedAgainOnItsDataServesWhatItHeld() throws Exception {
        Path data = dir.resolve("data");
        List<String> first;
        Process up = startUp(data, "3");
        try {
            first = awaitUrls(up);
            assertThat(send("PUT", first.get(0), "k1", "hello").statusCode(), is(201));
        } finally {
            stop(up);
        }

        up = startUp(data, "3");
        try {
            List<String> second = awaitUrls(up);
            assertThat("the nodes keep their addresses", second, is(first));
            HttpResponse<String> read = send("GET", second.get(2), "k1", null);
            assertThat(read.body(), read.statusCode(), is(200));
            assertThat(read.body(), is("hello"));
            assertThat(send("PUT", second.get(1), "k2", "again").statusCode(), is(201));
        } finally {
            stop(up);
        }

        // A different size on the same data is refused before any node starts: the metadata has three members.
        Process refused = startUp(data, "2");
        String said = new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(refused.waitFor(), is(Main.EXIT_USAGE));
        assertThat(said, containsString("holds a cluster of 3 node(s)"));

        // A node started by hand on node-1's data under another port would be a stranger to its own metadata: refused.
        int otherPort = LocalPorts.free(1).getFirst();
        String moved = "http://127.0.0.1:" + otherPort;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process stranger = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "serve", "--port", Integer.toString(otherPort), "--data", data.resolve("node-1").toString(),
                "--cluster", String.join(",", moved, first.get(1), first.get(2)),
                "--cluster-secret-file", data.resolve(ClusterSecretFile.NAME).toString(), "--warm-up", "PT0S"))
                .redirectErrorStream(true).start();
        String refusal = new String(stranger.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(refusal, stranger.waitFor(), is(Main.EXIT_CANNOT_START));
        assertThat(refusal, containsString("holds the data of the cluster member at " + first.get(0) + ", not " + moved));
    }

    private Process startUp(Path data, String nodes) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "up", "--nodes", nodes, "--data", data.toString())).redirectErrorStream(true).start();
    }

    /** Reads up's output until its welcome has listed the nodes; the rest is drained in the background. */
    private static List<String> awaitUrls(Process up) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(up.getInputStream(), StandardCharsets.UTF_8));
        List<String> urls = new ArrayList<>();
        StringBuilder seen = new StringBuilder();
        String line;
        boolean welcome = false;
        while ((line = lines.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.contains("node(s) ready")) {
                welcome = true;
            } else if (welcome) {
                Matcher node = NODE_LINE.matcher(line);
                if (!node.matches()) {
                    break;
                }
                urls.add(node.group(1));
            }
        }
        assertThat(seen.toString(), urls, hasSize(3));
        Thread drain = new Thread(() -> {
            try {
                while (lines.readLine() != null) {
                    // the nodes' logs: read so that up never blocks on a full pipe
                }
            } catch (IOException ignored) {
                // up exited
            }
        }, "up-output");
        drain.setDaemon(true);
        drain.start();
        return urls;
    }

    private HttpResponse<String> send(String method, String node, String key, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node + "/v0/entity?id=" + key)).timeout(Duration.ofSeconds(20));
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** SIGTERM, as Ctrl-C's shutdown: up stops its nodes before it exits. */
    private static void stop(Process up) throws InterruptedException {
        up.destroy();
        if (!up.waitFor(60, TimeUnit.SECONDS)) {
            up.descendants().forEach(ProcessHandle::destroyForcibly);
            up.destroyForcibly();
        }
    }
}
