package io.ringkv.cluster;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@link PeerHealth} current for peers that no request went to lately: every interval,
 * each peer not heard from for that long gets one {@code GET /v0/status} (the public status, which
 * answers 200 only while the peer serves). Under load the replica calls say it all and no probe
 * is sent.
 *
 * <p>Threading: one daemon thread ({@code ringkv-peer-probe}) sends the probes, never waiting for
 * them; answers land on the inter-node client's executor. At most one probe per peer is out.
 */
final class PeerProbe implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PeerProbe.class);
    /** The node's public status endpoint (served by the node module's API). */
    static final String STATUS_PATH = "/v0/status";

    private final ClusterNodes topology;
    private final HttpClient http;
    private final PeerHealth health;
    private final Duration interval;
    private final Duration timeout;
    private final Set<ClusterNode> outstanding = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService thread;

    PeerProbe(ClusterNodes topology, HttpClient http, PeerHealth health, Duration interval, Duration timeout) {
        this.topology = topology;
        this.http = http;
        this.health = health;
        this.interval = interval;
        this.timeout = timeout;
        this.thread = DaemonScheduler.named("ringkv-peer-probe");
    }

    /** Probes at once, then every interval; a one-node cluster has nobody to probe. */
    PeerProbe start() {
        if (!topology.others().isEmpty()) {
            thread.scheduleWithFixedDelay(this::round, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        }
        return this;
    }

    private void round() {
        for (ClusterNode peer : topology.others()) {
            if (health.quietFor(peer, interval.toNanos()) && outstanding.add(peer)) {
                probe(peer);
            }
        }
    }

    private void probe(ClusterNode peer) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(peer.id() + STATUS_PATH)).timeout(timeout).GET().build();
            http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
                outstanding.remove(peer);
                if (error != null) {
                    health.failed(peer, "probe: " + error);
                } else if (response.statusCode() != 200) {
                    health.failed(peer, "probe: status " + response.statusCode());
                } else {
                    health.answered(peer);
                }
            });
        } catch (RuntimeException e) {
            outstanding.remove(peer);
            LOG.debug("cannot probe {}: {}", peer, e.toString());
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("peer probe still running 5 s after close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
