package io.ringkv.ops.chaos;

import io.ringkv.ops.JsonText;
import io.ringkv.ops.chaos.HistoryChecker.FinalRead;
import io.ringkv.ops.chaos.HistoryChecker.Verdict;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One chaos run: start a cluster of node processes, run the workload while the nemesis injects
 * faults, heal, wait for the replicas to converge, read every key with a quorum read, and judge
 * the history ({@link HistoryChecker}). The history (one JSON object per line: operations, then
 * nemesis events, then final reads) goes to a file a person can replay and re-check.
 *
 * <p>Threading: {@link #run} on the caller's thread; the workload and the nemesis run on threads of
 * their own for the duration.
 */
public final class ChaosRun {

    /**
     * What to run.
     *
     * @param root             parent directory of the nodes' data
     * @param ports            one free port per node
     * @param duration         how long faults are injected
     * @param seed             drives the nemesis's and the clients' choices
     * @param faults           the faults the nemesis picks from
     * @param keys             how many keys the workload uses (few, so operations conflict)
     * @param clients          concurrent clients
     * @param opsPerSecond     the clients' combined rate
     * @param convergeTimeout  how long replicas get to agree after healing, before any read of the check
     * @param extraServeArgs   more {@code serve} flags for every node
     * @param history          where the history is written
     */
    public record Settings(Path root, List<Integer> ports, Duration duration, long seed, List<Fault> faults,
                           int keys, int clients, double opsPerSecond, Duration convergeTimeout,
                           List<String> extraServeArgs, Path history) {
        public Settings {
            Objects.requireNonNull(root);
            ports = List.copyOf(ports);
            faults = List.copyOf(faults);
            extraServeArgs = List.copyOf(extraServeArgs);
            if (ports.size() < 2 || keys < 1 || clients < 1 || opsPerSecond <= 0) {
                throw new IllegalArgumentException("a chaos run needs 2+ nodes, 1+ keys, 1+ clients and a positive rate");
            }
        }
    }

    /**
     * @param verdict        the checker's findings on the history and the final reads
     * @param converged      whether every node's local copy of every key agreed within the timeout
     * @param convergeMillis how long that took (the timeout when it did not happen)
     * @param diverged       for a run that did not converge: the keys on which nodes still disagreed
     */
    public record Result(Verdict verdict, boolean converged, long convergeMillis, List<String> diverged, Path history) {
        public boolean passed() {
            return verdict.valid() && converged;
        }
    }

    private static final Duration FINAL_READ_DEADLINE = Duration.ofSeconds(60);

    private final Settings settings;
    private final PrintStream console;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();

    /** @param console progress lines for a person watching; the nodes' own logs go there too */
    public ChaosRun(Settings settings, PrintStream console) {
        this.settings = settings;
        this.console = console;
    }

    public Result run() throws IOException, InterruptedException {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < settings.keys(); i++) {
            keys.add("chaos-k" + i);
        }
        List<String> events = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        try (ClusterSession session = ClusterSession.start(settings.root(), settings.ports(),
                settings.faults().contains(Fault.PARTITION), settings.faults().contains(Fault.MEMBERSHIP),
                settings.extraServeArgs(), console)) {
            ChaosCluster cluster = session.cluster();
            console.println("[chaos] " + cluster.size() + " nodes up; running " + settings.duration().toSeconds()
                    + " s with faults " + settings.faults() + ", seed " + settings.seed());
            Workload workload = new Workload(keys, cluster::url, cluster.size(), settings.clients(),
                    settings.opsPerSecond(), settings.seed(), start);
            Nemesis nemesis = new Nemesis(cluster, settings.faults(), settings.seed(), 8_000, 5_000, event -> {
                long at = (System.nanoTime() - start) / 1_000_000;
                events.add("{\"nemesis\":" + JsonText.string(event) + ",\"atMillis\":" + at + "}");
                console.println("[chaos] " + at + " ms: " + event);
            });
            Thread nemesisThread = new Thread(nemesis, "chaos-nemesis");
            workload.start();
            nemesisThread.start();
            Thread.sleep(settings.duration().toMillis());
            // Clients stop first, then the nemesis, leaving any fault in place: writes the faulted
            // node missed must reach it after healing without client reads or writes to help.
            workload.stop();
            nemesis.stop();
            nemesisThread.join();
            if (nemesis.failure() != null) {
                throw new IllegalStateException("the nemesis failed: " + nemesis.failure(), nemesis.failure());
            }
            cluster.healAll();
            console.println("[chaos] healed; waiting up to " + settings.convergeTimeout().toSeconds() + " s for replicas to converge");
            long convergeStart = System.nanoTime();
            List<String> diverged = awaitConvergence(cluster, keys);
            long convergeMillis = (System.nanoTime() - convergeStart) / 1_000_000;
            Map<String, FinalRead> finalReads = finalReads(cluster, keys);
            List<Operation> history = workload.history();
            // A wiped replica may answer a quorum read before anti-entropy refilled it: stale reads
            // are then expected (reported, not failed on).
            Verdict verdict = HistoryChecker.check(history, finalReads, new LinkedHashSet<>(keys),
                    settings.faults().contains(Fault.WIPE));
            writeHistory(history, events, finalReads);
            return new Result(verdict, diverged.isEmpty(), convergeMillis, diverged, settings.history());
        } finally {
            http.close();
        }
    }

    /** Polls every node's local copy of every key until they agree, or the timeout passes. */
    private List<String> awaitConvergence(ChaosCluster cluster, List<String> keys) throws InterruptedException {
        long end = System.nanoTime() + settings.convergeTimeout().toNanos();
        List<String> diverged;
        do {
            diverged = new ArrayList<>();
            for (String key : keys) {
                List<String> views = new ArrayList<>();
                for (int node = 0; node < cluster.size(); node++) {
                    views.add(localValue(cluster.url(node), key).map(v -> "'" + v + "'").orElse("absent"));
                }
                if (new LinkedHashSet<>(views).size() != 1) {
                    diverged.add(key + " " + views);
                }
            }
            if (diverged.isEmpty()) {
                return diverged;
            }
            Thread.sleep(500);
        } while (System.nanoTime() < end);
        return diverged;
    }

    /**
     * The node's own copy of one key, through a one-key local range ({@code [key, key + "\0")}):
     * the one read that shows a single replica's state. A failed read counts as a distinct view.
     */
    private Optional<String> localValue(String node, String key) throws InterruptedException {
        URI uri = URI.create(node + "/v0/entities?local=true&start=" + encode(key) + "&end=" + encode(key + "\0"));
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return Optional.of("<HTTP " + response.statusCode() + ">");
            }
            String body = response.body();
            return body.isEmpty() ? Optional.empty() : Optional.of(body.substring(body.indexOf('\n') + 1));
        } catch (IOException e) {
            return Optional.of("<" + e.getClass().getSimpleName() + ">");
        }
    }

    /** A default (quorum) GET of every key, through any node that answers, retried until the deadline. */
    private Map<String, FinalRead> finalReads(ChaosCluster cluster, List<String> keys) throws InterruptedException {
        Map<String, FinalRead> reads = new HashMap<>();
        long end = System.nanoTime() + FINAL_READ_DEADLINE.toNanos();
        for (String key : keys) {
            int attempt = 0;
            while (!reads.containsKey(key) && System.nanoTime() < end) {
                String node = cluster.url(attempt++ % cluster.size());
                URI uri = URI.create(node + "/v0/entity?id=" + encode(key));
                try {
                    HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200) {
                        reads.put(key, new FinalRead(key, Optional.of(response.body())));
                    } else if (response.statusCode() == 404) {
                        reads.put(key, new FinalRead(key, Optional.empty()));
                    } else {
                        Thread.sleep(200);
                    }
                } catch (IOException e) {
                    Thread.sleep(200);
                }
            }
        }
        return reads;
    }

    private void writeHistory(List<Operation> history, List<String> events, Map<String, FinalRead> finalReads) throws IOException {
        Path file = settings.history();
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        List<Operation> ordered = new ArrayList<>(history);
        ordered.sort((a, b) -> Long.compare(a.invokeNanos(), b.invokeNanos()));
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write("{\"seed\":" + settings.seed() + ",\"nodes\":" + settings.ports().size() + ",\"faults\":"
                    + JsonText.string(settings.faults().toString()) + ",\"durationSeconds\":" + settings.duration().toSeconds() + "}\n");
            for (Operation op : ordered) {
                out.write(op.toJson());
                out.write('\n');
            }
            for (String event : events) {
                out.write(event);
                out.write('\n');
            }
            for (FinalRead read : finalReads.values()) {
                out.write("{\"finalRead\":" + JsonText.string(read.key()) + ",\"value\":"
                        + read.value().map(JsonText::string).orElse("null") + "}\n");
            }
        }
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
