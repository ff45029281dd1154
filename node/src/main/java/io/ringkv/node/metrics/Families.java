package io.ringkv.node.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the metric families of one scrape from values read at that moment, for the collectors
 * that read a component's own counters (server, store, cluster) once per scrape.
 *
 * <p>Threading: one per scrape, confined to the scraping thread.
 */
final class Families {
    private final List<MetricSnapshot> families = new ArrayList<>();

    /** A counter; {@code name} without the {@code _total} the text format adds. */
    Families counter(String name, String help, double value) {
        families.add(CounterSnapshot.builder().name(name).help(help)
                .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().value(value).build()).build());
        return this;
    }

    Families gauge(String name, String help, double value) {
        families.add(GaugeSnapshot.builder().name(name).help(help)
                .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).build()).build());
        return this;
    }

    /** A gauge with one data point per entry, labelled {@code label="key"}. */
    Families gauge(String name, String help, String label, Map<String, ? extends Number> values) {
        GaugeSnapshot.Builder family = GaugeSnapshot.builder().name(name).help(help);
        values.forEach((key, value) -> family.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .labels(Labels.of(label, key)).value(value.doubleValue()).build()));
        families.add(family.build());
        return this;
    }

    /** A counter with one data point per entry, labelled {@code label="key"}. */
    Families counter(String name, String help, String label, Map<String, ? extends Number> values) {
        CounterSnapshot.Builder family = CounterSnapshot.builder().name(name).help(help);
        values.forEach((key, value) -> family.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                .labels(Labels.of(label, key)).value(value.doubleValue()).build()));
        families.add(family.build());
        return this;
    }

    MetricSnapshots build() {
        return new MetricSnapshots(families);
    }
}
