package io.ringkv.node.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringkv.cluster.Cluster;
import io.ringkv.cluster.ClusterNode;
import io.ringkv.http.client.ClientStats;
import io.ringkv.http.client.RouteStats;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The connections to each peer and the requests in flight on them, read from the node's transport
 * once per scrape ({@code PeerTransport.stats}). Every peer has a data point, 0 while
 * no connection to it is open. With the JDK's client ({@code --internode-client JDK}), which
 * tells nothing of its pool, the families are absent rather than a misleading 0.
 *
 * <p>Threading: stateless; {@link #collect} on the scraping thread.
 */
final class InterNodeClientCollector implements MultiCollector {

    private final Cluster cluster;

    InterNodeClientCollector(Cluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public MetricSnapshots collect() {
        Optional<ClientStats> read = cluster.interNodeClientStats();
        if (read.isEmpty()) {
            return MetricSnapshots.of();
        }
        ClientStats stats = read.get();
        Map<String, Integer> connections = new LinkedHashMap<>();
        Map<String, Integer> streams = new LinkedHashMap<>();
        for (ClusterNode peer : cluster.topology().others()) {
            connections.put(peer.id(), 0);
            streams.put(peer.id(), 0);
        }
        for (RouteStats route : stats.routes()) {
            // The client's origins come from the peers' ids; parsing writes them the same way.
            String peer = ClusterNode.parse(route.origin()).id();
            if (connections.containsKey(peer)) {
                connections.merge(peer, route.connections(), Integer::sum);
                streams.merge(peer, route.exchangesInFlight(), Integer::sum);
            }
        }
        return new Families()
                .gauge("ringkv_internode_connections", "Connections open to the peer (by default one per event "
                        + "loop that called it), idle ones included", "peer", connections)
                .gauge("ringkv_internode_streams", "Requests to the peer in flight on those connections: open HTTP/2 "
                        + "streams (with --internode-client RING --internode-protocol h1, the connections carrying a request); requests waiting "
                        + "for a connection or a stream slot are not counted", "peer", streams)
                .counter("ringkv_internode_connections_opened", "Connections to the peers opened since the node "
                        + "started, all peers together", stats.connectionsOpened())
                .build();
    }
}
