package io.ringkv.ops;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;

/**
 * A node's data requests between two reads of its {@code /metrics}: how many per second, and the
 * latency histogram of just those requests (the difference of the two cumulative histograms), for
 * {@code ringkv status} and the dashboard.
 *
 * <p>Immutable.
 */
public final class RequestRates {

    /** The operations on data: what "requests" means here (status and metrics scrapes are not). */
    static final Set<String> DATA_OPERATIONS = Set.of("get", "put", "delete", "range");
    private static final String REQUESTS = "ringkv_requests_total";
    private static final String BUCKETS = "ringkv_request_duration_seconds_bucket";

    private final double perSecond;
    /** Upper bound (seconds, the last +Inf) to the requests between the reads at or below it. */
    private final TreeMap<Double, Double> cumulative;
    private final double total;

    private RequestRates(double perSecond, TreeMap<Double, Double> cumulative) {
        this.perSecond = perSecond;
        this.cumulative = cumulative;
        this.total = cumulative.isEmpty() ? 0 : Math.max(0, cumulative.lastEntry().getValue());
    }

    /** The requests between two samples of one node; empty unless both have metrics, {@code now} the later. */
    public static Optional<RequestRates> between(NodeSample before, NodeSample now) {
        if (before.metrics() == null || now.metrics() == null || now.atNanos() <= before.atNanos()) {
            return Optional.empty();
        }
        double seconds = (now.atNanos() - before.atNanos()) / 1e9;
        double requests = dataRequests(now.metrics()) - dataRequests(before.metrics());
        TreeMap<Double, Double> cumulative = new TreeMap<>();
        add(cumulative, now.metrics(), 1);
        add(cumulative, before.metrics(), -1);
        return Optional.of(new RequestRates(Math.max(0, requests) / seconds, cumulative));
    }

    public double perSecond() {
        return perSecond;
    }

    /** Whether any request finished between the two reads. */
    boolean anyRequests() {
        return total > 0;
    }

    /**
     * The bucket that holds the {@code q}-quantile of the requests: its upper bound in seconds,
     * +Inf when it lies beyond the last finite bound; empty without requests.
     */
    OptionalDouble bucketOf(double q) {
        Map.Entry<Double, Double> bucket = bucketEntry(q);
        return bucket == null ? OptionalDouble.empty() : OptionalDouble.of(bucket.getKey());
    }

    /** The largest finite bucket bound below {@code upperBound}, or empty for the first bucket. */
    OptionalDouble boundBelow(double upperBound) {
        Double lower = cumulative.lowerKey(upperBound);
        return lower == null ? OptionalDouble.empty() : OptionalDouble.of(lower);
    }

    /**
     * An estimate of the {@code q}-quantile in seconds, by linear interpolation inside the bucket
     * that holds it, as Prometheus' {@code histogram_quantile} estimates it (and, like it, the
     * largest finite bound when the quantile lies in the +Inf bucket); empty without requests.
     */
    public OptionalDouble quantileSeconds(double q) {
        Map.Entry<Double, Double> bucket = bucketEntry(q);
        if (bucket == null) {
            return OptionalDouble.empty();
        }
        Map.Entry<Double, Double> below = cumulative.lowerEntry(bucket.getKey());
        if (Double.isInfinite(bucket.getKey())) {
            return OptionalDouble.of(below == null ? 0 : below.getKey());
        }
        double lowerBound = below == null ? 0 : below.getKey();
        double countBelow = below == null ? 0 : below.getValue();
        double inBucket = bucket.getValue() - countBelow;
        double rank = q * total;
        double fraction = inBucket <= 0 ? 1 : (rank - countBelow) / inBucket;
        return OptionalDouble.of(lowerBound + (bucket.getKey() - lowerBound) * Math.min(1, Math.max(0, fraction)));
    }

    private Map.Entry<Double, Double> bucketEntry(double q) {
        if (total <= 0) {
            return null;
        }
        for (Map.Entry<Double, Double> bucket : cumulative.entrySet()) {
            if (bucket.getValue() >= q * total) {
                return bucket;
            }
        }
        return cumulative.lastEntry();
    }

    private static double dataRequests(PrometheusText metrics) {
        return metrics.sum(REQUESTS, s -> DATA_OPERATIONS.contains(s.label("operation")));
    }

    /** Adds (or, with sign -1, subtracts) the data operations' cumulative bucket counts, summed over operations. */
    private static void add(TreeMap<Double, Double> counts, PrometheusText metrics, int sign) {
        for (PrometheusText.Sample sample : metrics.samples()) {
            if (sample.name().equals(BUCKETS) && DATA_OPERATIONS.contains(sample.label("operation"))) {
                double le = sample.label("le").equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(sample.label("le"));
                counts.merge(le, sign * sample.value(), Double::sum);
            }
        }
    }
}
