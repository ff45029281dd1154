package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.ringkv.node.dashboard.ClusterOverview;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node with metrics off ({@code serve --metrics off}) serves as any other, answers
 * {@code /metrics} with 404 and says why, and has recorded nothing: its dashboard, which reads the
 * node's own metrics in process, finds no request rate after requests where a node with metrics
 * on finds one (DashboardTest), and no disk figure.
 */
class MetricsOffTest {

    @TempDir
    Path data;

    private Node node;

    @BeforeEach
    void startNode() throws Exception {
        node = Node.start(NodeConfig.singleNode(0, data).withMetrics(false));
    }

    @AfterEach
    void stopNode() {
        node.close();
    }

    @Test
    void metricsAnswer404WithTheReason() throws Exception {
        RawHttp.Reply reply = RawHttp.get(node.port(), "/metrics");
        assertThat(reply.status(), is(404));
        assertThat(reply.headers().get("content-type"), is("text/plain; charset=utf-8"));
        assertThat(text(reply), is("metrics are off on this node (started with serve --metrics off)\n"));
    }

    @Test
    void requestsAreServedAndNothingIsRecorded() throws Exception {
        assertThat(RawHttp.get(node.port(), "/ui/api/cluster").status(), is(200));
        for (int i = 0; i < 20; i++) {
            assertThat(RawHttp.send(node.port(), "PUT", "/v0/entity?id=r" + i, Map.of(), new byte[] {1}).status(), is(201));
        }
        assertThat(text(RawHttp.get(node.port(), "/v0/entity?id=r7")), is("\u0001"));
        Thread.sleep(ClusterOverview.REUSE_NANOS / 1_000_000 + 100);
        RawHttp.Reply overview = RawHttp.get(node.port(), "/ui/api/cluster");
        assertThat(overview.status(), is(200));
        String json = text(overview);
        assertThat(json, containsString("\"health\":\"up\""));
        assertThat(json, containsString("\"perSecond\":null,\"p50Millis\":null,\"p99Millis\":null,\"diskBytes\":null"));
    }

    private static String text(RawHttp.Reply reply) {
        return new String(reply.body(), StandardCharsets.UTF_8);
    }
}
