package io.ringkv.node;

import io.ringkv.cluster.ClusterNode;
import io.ringkv.http.client.RingHttpClient;
import io.ringkv.ops.JsonText;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;

/**
 * Which of a starting node's peers already serve, and have for a while: the question behind its
 * warm-up. A node restarted into a serving cluster can warm up first, since its peers answer
 * meanwhile; a node of a new cluster (all started together, or one by one by a script) cannot
 * lean on anyone and should serve at once. One {@code GET /v0/status} per peer, all at once,
 * bounded by a timeout: a peer not yet listening refuses at once, a peer still starting answers
 * {@code 503}.
 *
 * <p>A peer counts as serving when it answers {@code 200} and its {@code servingSeconds} is at least
 * {@value #SETTLED_SECONDS}: nodes of a new cluster started together by {@code ringkv up} or a script
 * reach "serving" a few seconds apart on a busy machine, and the last one must not take the
 * first one's fresh {@code 200} for a serving cluster. Not the uptime: it counts the start too,
 * which took one node of {@code ringkv up} 11 s on a loaded two-core machine. A peer of a build
 * without the field counts as not serving. A peer's answer is untrusted bytes: only
 * its first {@value #STATUS_BYTES_MAX} bytes are kept, and anything but a well-formed uptime
 * counts as "not serving", which only costs the warm-up.
 *
 * <p>Threading: {@link #probe} blocks the calling thread for at most its timeout (plus the
 * client's shutdown); the client's own threads complete the answers.
 */
final class ServingPeers {
    /** Time serving (the peer's {@code /v0/status} {@code servingSeconds}) from which a serving peer is taken to be part of a running cluster. */
    static final long SETTLED_SECONDS = 10;
    /** How long the probes may take together: the start of a node of a new cluster is this much later at worst. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
    /** The status body is a few hundred bytes to a few KiB (its peer and member lists); more is not a status. */
    static final int STATUS_BYTES_MAX = 64 * 1024;

    /**
     * What the probes found.
     *
     * @param serving the peers that serve and have for {@value #SETTLED_SECONDS} s or more
     * @param seen    one entry per peer probed, e.g. {@code http://h:1 serving for 42 s}, for the log
     */
    record Probe(List<String> serving, List<String> seen) {
        Probe {
            serving = List.copyOf(serving);
            seen = List.copyOf(seen);
        }
    }

    private ServingPeers() {
    }

    /**
     * Probes every peer once, in parallel, for at most {@code timeout} in all.
     *
     * @param trust verifies https peers' certificates (null: the JDK's default trust store; unused over http)
     */
    static Probe probe(List<ClusterNode> peers, SSLContext trust, Duration timeout) throws InterruptedException {
        if (peers.isEmpty()) {
            return new Probe(List.of(), List.of());
        }
        RingHttpClient.Builder builder = RingHttpClient.newBuilder().connectTimeout(timeout);
        if (trust != null) {
            builder.sslContext(trust);
        }
        List<String> serving = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        try (HttpClient client = builder.build()) {
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (ClusterNode peer : peers) {
                HttpRequest status = HttpRequest.newBuilder(URI.create(peer.id() + StatusEndpoint.PATH)).timeout(timeout).GET().build();
                answers.add(client.sendAsync(status,
                        HttpResponse.BodyHandlers.limiting(HttpResponse.BodyHandlers.ofString(), STATUS_BYTES_MAX)));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            for (int i = 0; i < peers.size(); i++) {
                String peer = peers.get(i).id();
                Seen state = state(answers.get(i), deadline);
                seen.add(peer + " " + state.text());
                if (state.servingSeconds() >= SETTLED_SECONDS) {
                    serving.add(peer);
                }
            }
            answers.forEach(answer -> answer.cancel(true));
        }
        return new Probe(serving, seen);
    }

    /**
     * One peer's answer.
     *
     * @param text           as the log names it: {@code serving for N s}, {@code status 503}, {@code no answer (...)}
     * @param servingSeconds its uptime when it serves, else -1
     */
    private record Seen(String text, long servingSeconds) {
        static Seen not(String text) {
            return new Seen(text, -1);
        }
    }

    private static Seen state(CompletableFuture<HttpResponse<String>> answer, long deadline) throws InterruptedException {
        HttpResponse<String> response;
        try {
            response = answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return Seen.not("no answer (timed out)");
        } catch (ExecutionException e) {
            return Seen.not("no answer (" + e.getCause() + ")");
        }
        if (response.statusCode() != 200) {
            return Seen.not("status " + response.statusCode());
        }
        Optional<Double> serving = JsonText.numberField(response.body(), "servingSeconds");
        if (serving.isEmpty() || !(serving.get() >= 0) || serving.get() > Long.MAX_VALUE / 2) {
            return Seen.not("status 200 without a time serving");
        }
        long seconds = serving.get().longValue();
        return new Seen("serving for " + seconds + " s", seconds);
    }
}
