package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import io.ringkv.cluster.ClusterSecret;
import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.PrometheusText;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of real nodes after real requests: three nodes of one cluster in this JVM
 * (each with a registry of its own), requests through node 0, every family present with values
 * that follow from those requests; Prometheus' own checker accepts the output.
 */
class MetricsIT {
    private static final long WAIT_MILLIS = 60_000;

    @TempDir
    Path root;

    private Node node0;
    private Node node1;
    private Node node2;
    /** Node 1's URL, the peer most assertions look at. */
    private String peer;
    /** Node 2's URL. */
    private String otherPeer;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws Exception {
        List<Integer> ports = LocalPorts.free(3);
        List<String> urls = ports.stream().map(p -> "http://127.0.0.1:" + p).toList();
        ClusterSecret secret = ClusterSecret.of(ClusterSecret.generateText());
        node0 = Node.start(NodeConfig.singleNode(ports.get(0), root.resolve("n0")).withCluster(urls).withSecret(secret));
        node1 = Node.start(NodeConfig.singleNode(ports.get(1), root.resolve("n1")).withCluster(urls).withSecret(secret));
        node2 = Node.start(NodeConfig.singleNode(ports.get(2), root.resolve("n2")).withCluster(urls).withSecret(secret));
        peer = urls.get(1);
        otherPeer = urls.get(2);
    }

    @AfterEach
    void stop() {
        client.close();
        if (node1 != null) {
            node1.close();
        }
        node2.close();
        node0.close();
    }

    @Test
    void everyFamilyIsPresentWithValuesThatFollowFromTheRequests() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertThat(send(node0, "PUT", "/v0/entity?id=k" + i + "&replicas=3/3", "v" + i).statusCode(), is(201));
            assertThat(send(node0, "GET", "/v0/entity?id=k" + i + "&replicas=3/3", null).statusCode(), is(200));
        }
        assertThat(send(node0, "GET", "/v0/entity?id=absent", null).statusCode(), is(404));
        assertThat(send(node0, "DELETE", "/v0/entity?id=k0", null).statusCode(), is(202));
        assertThat(send(node0, "GET", "/v0/entities?start=k", null).statusCode(), is(200));

        // The listener counts a response after handing it over: wait for the last one to land.
        PrometheusText m = scrapeUntil(node0, t -> t.sum("ringkv_requests_total", op("delete", "202")) == 1
                && t.sum("ringkv_requests_total", op("range", "200")) == 1);
        assertThat(m.sum("ringkv_requests_total", op("put", "201")), is(20.0));
        assertThat(m.sum("ringkv_requests_total", op("get", "200")), is(20.0));
        assertThat(m.sum("ringkv_requests_total", op("get", "404")), is(1.0));
        assertHistogram(m, "ringkv_request_duration_seconds", s -> s.label("operation").equals("put"), 20);
        assertThat("the scrape itself is in flight", m.sum("ringkv_requests_in_flight", all()), greaterThanOrEqualTo(1.0));
        assertThat(m.sum("ringkv_responses_unavailable_total", all()), is(0.0));
        assertThat(m.has("ringkv_responses_gateway_timeout_total"), is(true));

        // 20 PUTs and 20 GETs at 3/3 each called every peer once.
        m = scrapeUntil(node0, t -> t.sum("ringkv_replica_calls_total", peer("ok")) >= 40);
        assertHistogram(m, "ringkv_replica_call_duration_seconds", s -> s.label("peer").equals(peer), 40);
        assertThat(m.sum("ringkv_replica_calls_total", peer("timeout")), is(0.0));
        // Replica calls leave in batches (--internode-batches 1): one request at a time here, so each
        // batch carried one call: 20 PUTs and the DELETE wrote to the peer, 20 GETs read from it.
        java.util.function.Predicate<PrometheusText.Sample> toPeer = s -> s.label("peer").equals(peer);
        assertThat(m.sum("ringkv_replica_writes_batched_total", toPeer), is(21.0));
        assertThat(m.sum("ringkv_replica_write_batches_total", toPeer), is(21.0));
        assertThat(m.sum("ringkv_replica_reads_batched_total", toPeer), greaterThanOrEqualTo(20.0));
        assertThat(m.sum("ringkv_replica_read_batches_total", toPeer), is(m.sum("ringkv_replica_reads_batched_total", toPeer)));

        // Those calls went over the transport to the peers: one h2c connection per peer and event
        // loop of the node (a loop's first call opens it; the node runs a loop per core) carried
        // them as streams, all finished now (a peer probe may be in flight for a moment: wait it out).
        m = scrapeUntil(node0, t -> t.sum("ringkv_internode_streams", all()) == 0);
        for (String each : List.of(peer, otherPeer)) {
            double connections = m.sum("ringkv_internode_connections", s -> s.label("peer").equals(each));
            assertThat(each, connections, greaterThanOrEqualTo(1.0));
            assertThat(each, connections, lessThanOrEqualTo((double) Runtime.getRuntime().availableProcessors()));
            assertThat(each, m.samples().stream()
                    .filter(s -> s.name().equals("ringkv_internode_streams") && s.label("peer").equals(each)).count(), is(1L));
        }
        assertThat(m.sum("ringkv_internode_connections_opened_total", all()), greaterThanOrEqualTo(2.0));

        assertThat(m.sum("ringkv_storage_keys_written_total", all()), greaterThanOrEqualTo(20.0));
        assertThat(m.sum("ringkv_storage_keys_read_total", all()), greaterThanOrEqualTo(20.0));
        assertThat(m.sum("ringkv_storage_memtable_bytes", all()), greaterThan(0.0));
        assertThat(m.sum("ringkv_storage_disk_bytes", all()), greaterThan(0.0));
        assertThat(m.sum("ringkv_storage_estimated_keys", all()), greaterThanOrEqualTo(1.0));
        for (String family : List.of("ringkv_storage_live_sst_bytes", "ringkv_storage_pending_compaction_bytes",
                "ringkv_storage_writes_stopped", "ringkv_storage_write_stall_seconds_total",
                "ringkv_storage_block_cache_hits_total", "ringkv_storage_block_cache_misses_total",
                "ringkv_storage_block_cache_hit_ratio", "ringkv_storage_delayed_write_rate_bytes")) {
            assertThat(family, m.has(family), is(true));
        }

        assertThat(m.sum("ringkv_server_connections_accepted_total", all()), greaterThanOrEqualTo(1.0));
        assertThat(m.sum("ringkv_server_connections_open", all()), greaterThanOrEqualTo(1.0));
        assertThat(m.sum("ringkv_server_connections_refused_total", all()), is(0.0));
        assertThat(m.sum("ringkv_server_received_bytes_total", all()), greaterThan(0.0));
        assertThat(m.sum("ringkv_server_sent_bytes_total", all()), greaterThan(0.0));
        assertThat(m.sum("ringkv_server_event_loop_busy_seconds_total", all()), greaterThan(0.0));
        assertThat(m.has("ringkv_server_event_loop_timers"), is(true));

        m = scrapeUntil(node0, t -> t.sum("ringkv_peer_up", s -> s.label("peer").equals(peer)) == 1);
        assertThat(m.sum("ringkv_hints_queued", s -> s.label("target").equals(peer)), is(0.0));
        assertThat("a healthy peer's answers all carry their proofs",
                m.sum("ringkv_internal_answers_rejected_total", s -> s.label("peer").equals(peer)), is(0.0));
        assertThat(m.has("ringkv_internal_answers_rejected_total"), is(true));
        for (String family : List.of("ringkv_hints_stored_total", "ringkv_hints_replayed_total", "ringkv_hints_dropped_total",
                "ringkv_hints_corrupt_total",
                "ringkv_cleanup_running", "ringkv_cleanup_runs_total", "ringkv_cleanup_records",
                "ringkv_anti_entropy_rounds_total", "ringkv_anti_entropy_running", "ringkv_anti_entropy_records_pushed_total",
                "ringkv_anti_entropy_buckets_without_scan_total",
                "ringkv_anti_entropy_buckets_differing", "ringkv_tombstones_collected_total", "ringkv_paxos_states_collected_total", "ringkv_tombstone_sweeps_total",
                "jvm_memory_used_bytes", "jvm_threads_current",
                "process_cpu_seconds_total")) {
            assertThat(family, m.has(family), is(true));
        }

        PrometheusText other = scrape(node1);
        assertThat("node 1 has a registry of its own: it coordinated none of node 0's PUTs",
                other.sum("ringkv_requests_total", op("put", "201")), is(0.0));
        assertThat(other.sum("ringkv_requests_total", s -> s.label("operation").equals("internal")), greaterThanOrEqualTo(40.0));
    }

    @Test
    void aPeerThatStoppedShowsAs504sFailedCallsHintsAndDown() throws Exception {
        assertThat(send(node0, "PUT", "/v0/entity?id=before&replicas=3/3", "v").statusCode(), is(201));
        scrapeUntil(node0, t -> t.sum("ringkv_internode_connections", s -> s.label("peer").equals(peer)) == 1);
        node1.close();
        node1 = null;
        assertThat(send(node0, "PUT", "/v0/entity?id=k&replicas=3/3", "v").statusCode(), is(504));

        PrometheusText m = scrapeUntil(node0, t -> t.sum("ringkv_peer_up", s -> s.label("peer").equals(peer)) == 0
                && t.sum("ringkv_responses_gateway_timeout_total", all()) == 1);
        assertThat(m.sum("ringkv_requests_total", op("put", "504")), is(1.0));
        assertThat(m.sum("ringkv_replica_calls_total", peer("failed")) + m.sum("ringkv_replica_calls_total", peer("timeout")),
                greaterThanOrEqualTo(1.0));
        assertThat(m.sum("ringkv_hints_queued", s -> s.label("target").equals(peer)), is(1.0));
        assertThat(m.sum("ringkv_hints_stored_total", all()), is(1.0));
        m = scrapeUntil(node0, t -> t.sum("ringkv_internode_connections", s -> s.label("peer").equals(peer)) == 0);
        assertThat("the live peer keeps its connections",
                m.sum("ringkv_internode_connections", s -> s.label("peer").equals(otherPeer)), greaterThanOrEqualTo(1.0));
        String status = send(node0, "GET", "/v0/status", null).body();
        assertThat(status, containsString("{\"node\":\"" + peer + "\",\"state\":\"down\""));
    }

    @Test
    void promtoolAcceptsTheOutput() throws Exception {
        Assumptions.assumeTrue(promtoolInstalled(),
                "promtool not installed (Debian package 'prometheus'; ./ringkv test installs it as root): check skipped");
        // Replicated to both peers, so the per-peer families have data points with values.
        assertThat(send(node0, "PUT", "/v0/entity?id=k&replicas=3/3", "v").statusCode(), is(201));
        assertThat(send(node0, "GET", "/v0/entity?id=k&replicas=3/3", null).statusCode(), is(200));
        String text = send(node0, "GET", "/metrics", null).body();
        // One connection per event loop that called the peer: the PUT and the GET may have run on different loops.
        assertThat(text, org.hamcrest.Matchers.matchesRegex("(?s).*\\nringkv_internode_connections\\{peer=\""
                + java.util.regex.Pattern.quote(peer) + "\"\\} [1-9](\\.0)?\\n.*"));
        byte[] exposition = text.getBytes(StandardCharsets.UTF_8);
        Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(exposition);
        }
        String report = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat("promtool exits", promtool.waitFor(60, TimeUnit.SECONDS), is(true));
        assertThat("promtool check metrics: " + report, promtool.exitValue(), is(0));
    }

    private static boolean promtoolInstalled() {
        try {
            Process p = new ProcessBuilder("promtool", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Buckets rise, the +Inf bucket equals the count, and the count is at least {@code atLeast}. */
    private static void assertHistogram(PrometheusText m, String name, Predicate<PrometheusText.Sample> series, double atLeast) {
        double count = m.sum(name + "_count", series);
        assertThat(name + " count", count, greaterThanOrEqualTo(atLeast));
        assertThat(name + " +Inf bucket", m.sum(name + "_bucket", series.and(s -> s.label("le").equals("+Inf"))), is(count));
        assertThat(name + " sum", m.sum(name + "_sum", series), greaterThan(0.0));
        double previous = 0;
        for (PrometheusText.Sample bucket : m.samples()) {
            if (bucket.name().equals(name + "_bucket") && series.test(bucket)) {
                assertThat(name + " buckets are cumulative", previous, lessThanOrEqualTo(bucket.value()));
                previous = bucket.value();
            }
        }
    }

    private static Predicate<PrometheusText.Sample> all() {
        return s -> true;
    }

    private static Predicate<PrometheusText.Sample> op(String operation, String status) {
        return s -> s.label("operation").equals(operation) && s.label("status").equals(status);
    }

    private Predicate<PrometheusText.Sample> peer(String outcome) {
        return s -> s.label("peer").equals(peer) && s.label("outcome").equals(outcome);
    }

    private PrometheusText scrape(Node node) throws Exception {
        HttpResponse<String> response = send(node, "GET", "/metrics", null);
        assertThat(response.statusCode(), is(200));
        assertThat(response.headers().firstValue("Content-Type").orElse(""), containsString("text/plain; version=0.0.4"));
        return PrometheusText.parse(response.body());
    }

    /** Scrapes until {@code done} holds (counters lag the responses by a moment), at most {@link #WAIT_MILLIS}. */
    private PrometheusText scrapeUntil(Node node, Predicate<PrometheusText> done) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MILLIS;
        PrometheusText text = scrape(node);
        while (!done.test(text)) {
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("metrics never reached the expected values");
            }
            Thread.sleep(50);
            text = scrape(node);
        }
        return text;
    }

    private HttpResponse<String> send(Node node, String method, String target, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(node.url() + target))
                .method(method, body == null ? BodyPublishers.noBody() : BodyPublishers.ofString(body)).build();
        return client.send(request, BodyHandlers.ofString(StandardCharsets.UTF_8));
    }
}
