package io.ringkv.node.dashboard;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.StateSetSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import io.ringkv.ops.PrometheusText;
import io.ringkv.ops.PrometheusText.Sample;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * This node's metrics for its own dashboard, read from its registry's snapshot: the samples its
 * {@code /metrics} page would show (the same names and labels, so {@code RequestRates} and the
 * overview read them as they read a peer's page), without writing the page and parsing it back.
 * Peers are still read over HTTP. Stateless.
 */
public final class OwnMetrics {
    private OwnMetrics() {
    }

    /** The samples of {@code snapshots}, named as the Prometheus text format names them. */
    public static PrometheusText of(MetricSnapshots snapshots) {
        List<Sample> samples = new ArrayList<>();
        for (MetricSnapshot snapshot : snapshots) {
            String name = snapshot.getMetadata().getPrometheusName();
            switch (snapshot) {
                case CounterSnapshot counter -> counter.getDataPoints().forEach(point ->
                        samples.add(sample(name + "_total", point.getLabels(), point.getValue())));
                case GaugeSnapshot gauge -> gauge.getDataPoints().forEach(point ->
                        samples.add(sample(name, point.getLabels(), point.getValue())));
                case HistogramSnapshot histogram -> histogram.getDataPoints().forEach(point ->
                        histogram(samples, name, histogram.isGaugeHistogram(), point));
                case SummarySnapshot summary -> summary.getDataPoints().forEach(point -> {
                    for (Quantile quantile : point.getQuantiles()) {
                        samples.add(sample(name, point.getLabels(), "quantile", quantile.getQuantile(), quantile.getValue()));
                    }
                    if (point.hasCount()) {
                        samples.add(sample(name + "_count", point.getLabels(), point.getCount()));
                    }
                    if (point.hasSum()) {
                        samples.add(sample(name + "_sum", point.getLabels(), point.getSum()));
                    }
                });
                case InfoSnapshot info -> info.getDataPoints().forEach(point ->
                        samples.add(sample(name + "_info", point.getLabels(), 1)));
                case StateSetSnapshot stateSet -> stateSet.getDataPoints().forEach(point -> {
                    for (int i = 0; i < point.size(); i++) {
                        Map<String, String> labels = labels(point.getLabels());
                        labels.put(name, point.getName(i));
                        samples.add(new Sample(name, labels, point.isTrue(i) ? 1 : 0));
                    }
                });
                case UnknownSnapshot unknown -> unknown.getDataPoints().forEach(point ->
                        samples.add(sample(name, point.getLabels(), point.getValue())));
                default -> {
                    // A snapshot type newer than this code: the dashboard reads none of them.
                }
            }
        }
        return PrometheusText.of(samples);
    }

    /** Cumulative {@code _bucket} samples by upper bound, then the count and sum, as the text format has them. */
    private static void histogram(List<Sample> samples, String name, boolean gauge,
                                  HistogramSnapshot.HistogramDataPointSnapshot point) {
        ClassicHistogramBuckets buckets = point.getClassicBuckets();
        long cumulative = 0;
        for (int i = 0; i < buckets.size(); i++) {
            cumulative += buckets.getCount(i);
            samples.add(sample(name + "_bucket", point.getLabels(), "le", buckets.getUpperBound(i), cumulative));
        }
        if (point.hasCount()) {
            samples.add(sample(name + (gauge ? "_gcount" : "_count"), point.getLabels(), point.getCount()));
        }
        if (point.hasSum()) {
            samples.add(sample(name + (gauge ? "_gsum" : "_sum"), point.getLabels(), point.getSum()));
        }
    }

    private static Sample sample(String name, Labels labels, double value) {
        return new Sample(name, labels(labels), value);
    }

    private static Sample sample(String name, Labels labels, String extraLabel, double extraValue, double value) {
        Map<String, String> all = labels(labels);
        all.put(extraLabel, number(extraValue));
        return new Sample(name, all, value);
    }

    private static Map<String, String> labels(Labels labels) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < labels.size(); i++) {
            map.put(labels.getPrometheusName(i), labels.getValue(i));
        }
        return map;
    }

    /** A bound or quantile as the text format writes it ({@code +Inf} for the last bucket). */
    private static String number(double value) {
        if (value == Double.POSITIVE_INFINITY) {
            return "+Inf";
        }
        if (value == Double.NEGATIVE_INFINITY) {
            return "-Inf";
        }
        return Double.toString(value);
    }
}
