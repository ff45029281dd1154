package io.ringkv.node.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.ringkv.http.server.ExchangeListener;
import io.ringkv.http.server.Request;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Public (and internal) requests the node's handler answered: a counter by operation and status,
 * a latency histogram per operation, and the 503s and 504s.
 *
 * <p>Recording allocates nothing and takes no lock: every data point is resolved once (the data
 * operations' usual statuses up front, any other on its first use) and kept in an array indexed by operation and
 * status; the Prometheus client's counters are adders underneath (exemplars off: they would look
 * for a trace on every increment), and the latencies are a {@link LatencyHistogram}.
 *
 * <p>Threading: {@link #onResponse} from any thread, concurrently.
 */
final class RequestMetrics implements ExchangeListener {

    /** Seconds; from a cached local read (~0.1 ms) to a request that waited for a timeout. */
    static final double[] LATENCY_BUCKETS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
        0.25, 0.5, 1, 2.5, 5, 10};
    /** Resolved up front, so a scrape shows them from the start: each data operation's usual answers. */
    private static final java.util.Map<Operation, int[]> USUAL_STATUSES = java.util.Map.of(
            Operation.GET, new int[] {200, 404, 503, 504}, Operation.PUT, new int[] {201, 503, 504},
            Operation.DELETE, new int[] {202, 503, 504}, Operation.RANGE, new int[] {200, 503, 504},
            Operation.INTERNAL, new int[] {200, 204, 404});
    private static final int STATUS_MAX = 599;

    private final Counter requests;
    /** [operation][status]: resolved data points. */
    private final AtomicReferenceArray<CounterDataPoint>[] byStatus;
    private final LatencyHistogram durations;
    private final AtomicReferenceArray<LatencyHistogram.Series> latency;
    private final LongAdder unavailable = new LongAdder();
    private final LongAdder gatewayTimeouts = new LongAdder();

    @SuppressWarnings("unchecked")
    RequestMetrics(PrometheusRegistry registry) {
        requests = Counter.builder().name("ringkv_requests")
                .help("Requests the node's handler answered, by operation and status (503s the server answers before "
                        + "the handler are in ringkv_responses_unavailable_total)")
                .labelNames("operation", "status").withoutExemplars().register(registry);
        durations = new LatencyHistogram("ringkv_request_duration_seconds",
                "Time from a request's dispatch to the handler until its response was handed to the connection",
                "operation", LATENCY_BUCKETS);
        registry.register(durations);
        Operation[] operations = Operation.values();
        byStatus = new AtomicReferenceArray[operations.length];
        latency = new AtomicReferenceArray<>(operations.length);
        for (Operation operation : operations) {
            byStatus[operation.ordinal()] = new AtomicReferenceArray<>(STATUS_MAX + 1);
        }
        USUAL_STATUSES.forEach((operation, statuses) -> {
            latency.set(operation.ordinal(), durations.series(operation.label));
            for (int status : statuses) {
                resolve(operation, status);
            }
        });
    }

    @Override
    public void onResponse(Request request, int status, long elapsedNanos) {
        Operation operation = Operation.of(request);
        int code = status < 100 || status > STATUS_MAX ? 500 : status;
        CounterDataPoint count = byStatus[operation.ordinal()].get(code);
        if (count == null) {
            count = resolve(operation, code); // an unusual status: allocates its labels once
        }
        count.inc();
        LatencyHistogram.Series time = latency.get(operation.ordinal());
        if (time == null) {
            time = durations.series(operation.label); // status, metrics, other: on first use
            latency.set(operation.ordinal(), time);
        }
        time.observe(elapsedNanos / 1e9);
        if (code == 503) {
            unavailable.increment();
        } else if (code == 504) {
            gatewayTimeouts.increment();
        }
    }

    private CounterDataPoint resolve(Operation operation, int status) {
        CounterDataPoint point = requests.labelValues(operation.label, Integer.toString(status));
        byStatus[operation.ordinal()].set(status, point);
        return point;
    }

    /** 503s the handler answered (starting, clock behind, range streams busy). */
    long unavailable() {
        return unavailable.sum();
    }

    /** 504s: too few replicas answered in time. */
    long gatewayTimeouts() {
        return gatewayTimeouts.sum();
    }
}
