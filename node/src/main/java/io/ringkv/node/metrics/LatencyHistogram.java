package io.ringkv.node.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * A latency histogram family with one label, classic buckets, exported through the Prometheus
 * client's data model. Why not the client's own {@code Histogram}: in version 1.10 every
 * {@code observe} allocates a capturing lambda (40 bytes, measured), and recording must not
 * allocate. Here a series is an array of adders, one per bucket, and a sum; an observation is a
 * bucket search and two adder updates. Counts are summed at scrape time, so the {@code +Inf}
 * bucket always equals the count; the sum may lag them by the observations in progress.
 *
 * <p>Threading: {@link Series#observe} from any thread, concurrently; {@link #series} from any
 * thread (resolve once and keep the result); {@link #collect} on the scraping thread.
 */
final class LatencyHistogram implements MultiCollector {

    private final String name;
    private final String help;
    private final String label;
    /** Upper bounds, ascending, the last one +Inf. */
    private final double[] bounds;
    private final ConcurrentHashMap<String, Series> series = new ConcurrentHashMap<>();

    /** @param upperBounds seconds, ascending, without +Inf */
    LatencyHistogram(String name, String help, String label, double[] upperBounds) {
        this.name = name;
        this.help = help;
        this.label = label;
        this.bounds = java.util.Arrays.copyOf(upperBounds, upperBounds.length + 1);
        this.bounds[upperBounds.length] = Double.POSITIVE_INFINITY;
    }

    /** The series for {@code labelValue}, made on first use (that call allocates; keep the result). */
    Series series(String labelValue) {
        return series.computeIfAbsent(labelValue, ignored -> new Series(bounds));
    }

    @Override
    public MetricSnapshots collect() {
        HistogramSnapshot.Builder family = HistogramSnapshot.builder().name(name).help(help);
        for (Map.Entry<String, Series> entry : new TreeMap<>(series).entrySet()) {
            Series s = entry.getValue();
            long[] counts = new long[bounds.length];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = s.buckets[i].sum();
            }
            family.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                    .labels(Labels.of(label, entry.getKey()))
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, counts))
                    .sum(s.sum.sum())
                    .build());
        }
        return new MetricSnapshots(family.build());
    }

    /** One labelled series: observation counts per bucket (not cumulative) and their sum. */
    static final class Series {
        private final double[] bounds;
        private final LongAdder[] buckets;
        private final DoubleAdder sum = new DoubleAdder();

        private Series(double[] bounds) {
            this.bounds = bounds;
            this.buckets = new LongAdder[bounds.length];
            for (int i = 0; i < buckets.length; i++) {
                buckets[i] = new LongAdder();
            }
        }

        void observe(double seconds) {
            int i = 0;
            while (seconds > bounds[i]) { // the last bound is +Inf: always stops
                i++;
            }
            buckets[i].increment();
            sum.add(seconds);
        }
    }
}
