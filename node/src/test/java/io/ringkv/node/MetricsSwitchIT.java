package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --metrics off} on one node of a 2-node cluster of separate processes: that node
 * serves and coordinates as the other, answers {@code /metrics} with 404 and the reason, and
 * {@code ringkv status} still lists it as up, without rates; the other node's metrics are there.
 */
class MetricsSwitchIT {

    @TempDir
    Path root;

    @Test
    void aNodeStartedWithMetricsOffServesWithoutThem() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(root, 2, List.of(), Map.of(1, List.of("--metrics", "off")))) {
            assertThat(cluster.put(1, "k", "v", "2/2").statusCode(), is(201));
            assertThat(cluster.get(0, "k", "2/2").body(), is("v"));

            HttpResponse<String> off = cluster.send(1, "GET", "/metrics", null);
            assertThat(off.statusCode(), is(404));
            assertThat(off.body(), is("metrics are off on this node (started with serve --metrics off)\n"));
            HttpResponse<String> on = cluster.send(0, "GET", "/metrics", null);
            assertThat(on.statusCode(), is(200));
            assertThat(on.body(), containsString("ringkv_requests_total{operation=\"get\",status=\"200\"} 1.0"));

            StringWriter out = new StringWriter();
            int code = Main.run(new PrintWriter(out), new PrintWriter(new StringWriter()), "status", "--node", cluster.url(0),
                    "--interval", "PT0.2S");
            assertThat(out.toString(), code, is(0));
            String row = out.toString().lines().filter(line -> line.startsWith(cluster.url(1) + " ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no row for node 1 in:\n" + out));
            assertThat("up, no rate, no p99, no disk figure", row, matchesPattern(".*\\s+up\\s+.*\\s+-\\s+-\\s+-$"));
        }
    }
}
