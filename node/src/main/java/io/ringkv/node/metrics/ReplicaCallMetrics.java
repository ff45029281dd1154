package io.ringkv.node.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.cluster.ReplicaCallListener;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator's calls to remote replicas, per peer: how many by outcome (ok, failed, timeout)
 * and how long they took.
 *
 * <p>A peer's data points are resolved on its first call and kept; after that a call costs a map
 * read and two adder updates, no allocation and no lock.
 *
 * <p>Threading: {@link #onReplicaCall} from any thread, concurrently.
 */
final class ReplicaCallMetrics implements ReplicaCallListener {

    private final Counter calls;
    private final LatencyHistogram durations;
    private final ConcurrentHashMap<ClusterNode, Peer> peers = new ConcurrentHashMap<>();

    ReplicaCallMetrics(PrometheusRegistry registry) {
        calls = Counter.builder().name("ringkv_replica_calls")
                .help("Calls of the coordinator to remote replicas for client requests, by peer and outcome "
                        + "(ok, failed: refused or answered with an error, timeout: no answer in --replica-timeout)")
                .labelNames("peer", "outcome").withoutExemplars().register(registry);
        durations = new LatencyHistogram("ringkv_replica_call_duration_seconds",
                "Time from the fan-out until a remote replica answered or failed, by peer", "peer",
                RequestMetrics.LATENCY_BUCKETS);
        registry.register(durations);
    }

    @Override
    public void onReplicaCall(ClusterNode node, long elapsedNanos, Throwable failure) {
        Peer peer = peers.get(node);
        if (peer == null) {
            peer = peers.computeIfAbsent(node, Peer::new);
        }
        CounterDataPoint outcome = failure == null ? peer.ok
                : ReplicaCallListener.isTimeout(failure) ? peer.timeout : peer.failed;
        outcome.inc();
        peer.duration.observe(elapsedNanos / 1e9);
    }

    /** One peer's resolved data points. */
    private final class Peer {
        final CounterDataPoint ok;
        final CounterDataPoint failed;
        final CounterDataPoint timeout;
        final LatencyHistogram.Series duration;

        Peer(ClusterNode node) {
            ok = calls.labelValues(node.id(), "ok");
            failed = calls.labelValues(node.id(), "failed");
            timeout = calls.labelValues(node.id(), "timeout");
            duration = durations.series(node.id());
        }
    }
}
