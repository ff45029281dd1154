package io.ringkv.node.dashboard;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.is;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.core.metrics.StateSet;
import io.prometheus.metrics.core.metrics.Summary;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.http.Headers;
import io.ringkv.http.server.Protocol;
import io.ringkv.http.server.Request;
import io.ringkv.node.metrics.NodeMetrics;
import io.ringkv.ops.PrometheusText;
import io.ringkv.ops.PrometheusText.Sample;
import io.ringkv.store.InMemoryStorageEngine;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dashboard reads its own node from the registry: every sample must be the one the node's
 * {@code /metrics} text gives for the same snapshot (name, labels, value), or the overview would
 * show this node's rates differently from its peers'.
 */
class OwnMetricsTest {
    private static final Request GET = new Request("GET", "/v0/entity", "id=k", new Headers(), new byte[0], null,
            Protocol.HTTP_1_1);

    @Test
    void aNodesRegistryGivesTheSamplesOfItsMetricsPage() {
        NodeMetrics metrics = new NodeMetrics();
        metrics.watch(new InMemoryStorageEngine());
        metrics.requestListener().onResponse(GET, 200, 150_000);
        metrics.requestListener().onResponse(GET, 503, 2_000_000_000L);
        metrics.replicaCallListener().onReplicaCall(ClusterNode.parse("http://127.0.0.1:8081"), 400_000, null);
        MetricSnapshots snapshot = metrics.snapshot();

        List<Sample> page = PrometheusText.parse(new String(metrics.text(snapshot), StandardCharsets.UTF_8)).samples();
        List<Sample> direct = OwnMetrics.of(snapshot).samples();

        assertThat(direct, containsInAnyOrder(page.toArray()));
        assertThat(direct, hasSize(page.size()));
        assertThat(direct.stream().anyMatch(s -> s.name().equals("ringkv_request_duration_seconds_bucket")), is(true));
    }

    @Test
    void everyKindOfFamilyIsNamedAsTheTextFormatNamesIt() {
        PrometheusRegistry registry = new PrometheusRegistry();
        Counter.builder().name("t_events").labelNames("kind").register(registry).labelValues("a").inc(3);
        Gauge.builder().name("t_level").register(registry).set(0.25);
        Histogram histogram = Histogram.builder().name("t_latency_seconds").classicUpperBounds(0.001, 0.5, 1)
                .register(registry);
        histogram.observe(0.0005);
        histogram.observe(0.7);
        Summary.builder().name("t_size_bytes").quantile(0.5, 0.01).register(registry).observe(42);
        Info.builder().name("t_build_info").labelNames("version").register(registry).setLabelValues("1.2");
        StateSet.builder().name("t_feature").states("on", "off").register(registry).setTrue("on");
        MetricSnapshots snapshot = registry.scrape();

        List<Sample> page = PrometheusText.parse(new String(new NodeMetrics().text(snapshot), StandardCharsets.UTF_8))
                .samples();
        List<Sample> direct = OwnMetrics.of(snapshot).samples();

        assertThat(direct, containsInAnyOrder(page.toArray()));
        assertThat(direct, hasSize(page.size()));
        assertThat(direct, hasItem(new Sample("t_events_total", java.util.Map.of("kind", "a"), 3)));
    }
}
