package io.ringkv.node.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.ringkv.http.server.HttpServer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The HTTP server's counters (connections, TLS handshakes, bytes, event-loop busy time, in flight) and the 503s
 * and 504s of the whole node, read once per scrape.
 *
 * <p>Threading: stateless; {@link #collect} on the scraping thread.
 */
final class ServerCollector implements MultiCollector {

    private final HttpServer server;
    private final RequestMetrics requests;

    ServerCollector(HttpServer server, RequestMetrics requests) {
        this.server = server;
        this.requests = requests;
    }

    @Override
    public MetricSnapshots collect() {
        Map<String, Long> unavailable = new LinkedHashMap<>();
        unavailable.put("server_overload", server.requestsRefused());
        unavailable.put("node", requests.unavailable());
        return new Families()
                .gauge("ringkv_requests_in_flight", "Requests admitted and not finished (bounded by --in-flight-max)",
                        server.inFlight())
                .counter("ringkv_responses_unavailable", "503 answers: server_overload (the server's in-flight or body "
                        + "memory budget, before any handler) and node (starting, clock behind its peers, range streams busy)",
                        "cause", unavailable)
                .counter("ringkv_responses_gateway_timeout", "504 answers: too few replicas answered in time",
                        requests.gatewayTimeouts())
                .gauge("ringkv_server_connections_open", "Client connections open", server.openConnections())
                .counter("ringkv_server_connections_accepted", "Client connections accepted, the refused ones included",
                        server.connectionsAccepted())
                .counter("ringkv_server_connections_refused", "Connections closed at once over --connections-max",
                        server.connectionsRefused())
                .counter("ringkv_server_requests_refused_at_head", "Requests answered at their head, before their "
                        + "body was read (401/403 without valid credentials, 413 over the route's limit); not in "
                        + "ringkv_requests_total, as no handler ran", server.requestsRefusedAtHead())
                .counter("ringkv_server_tls_handshakes_failed", "TLS handshakes that failed: timed out, broken off, or "
                        + "refused (plain HTTP on the TLS port, no common cipher); 0 without --tls-cert",
                        server.tlsHandshakesFailed())
                .counter("ringkv_server_tls_handshakes_refused", "Connections closed at once because too many TLS "
                        + "handshakes were in progress; 0 without --tls-cert", server.tlsHandshakesRefused())
                .counter("ringkv_server_received_bytes", "Bytes read from client connections", server.bytesRead())
                .counter("ringkv_server_sent_bytes", "Bytes written to client connections", server.bytesWritten())
                .counter("ringkv_server_event_loop_busy_seconds", "Time the server's event loops spent working rather "
                        + "than waiting, all loops together", server.loopBusyNanos() / 1e9)
                .gauge("ringkv_server_event_loops", "The server's event loop threads", server.eventLoops())
                .gauge("ringkv_server_event_loop_timers", "Timers the server's event loops hold (a few per "
                        + "connection; one that grows with the request rate is a leak)", server.timersPending())
                .build();
    }
}
