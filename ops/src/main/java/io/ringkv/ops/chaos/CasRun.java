package io.ringkv.ops.chaos;

import io.ringkv.ops.JsonText;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The compare-and-set chaos workload ({@code ringkv chaos --workload cas}): while the nemesis
 * injects faults, each of a few keys is played in rounds. A round reads the key's version, then
 * every writer, each through its own node, sends at once a PUT with {@code If-Match} on that
 * version ({@code If-None-Match: *} while the key has no value), each with a value of its own. At
 * most one may get {@code 201}: two are a double winner, the violation this run exists to count.
 * After a round with a winner, a quorum read must return the winner's value (else a lost winner):
 * rounds of a key follow one another, so nothing else can have written it meanwhile. With
 * {@link Fault#MEMBERSHIP}, a spare node joins and leaves: conditional writes are refused
 * ({@code 503}) while it does, and rounds around each change run under nodes whose metadata
 * differs for a moment, which their replicas must refuse rather than let two owner sets decide.
 *
 * <p>Threading: {@link #run} on the caller's thread; one thread per key plays its rounds, and a
 * pool of writer threads sends each round's requests.
 */
public final class CasRun {

    /**
     * @param rounds        rounds played, all keys together
     * @param roundsWon     rounds with exactly one 201
     * @param doubleWinners rounds with two or more 201s (must be 0)
     * @param lostWinners   rounds whose winner's value a quorum read after the round did not return (must be 0)
     * @param statuses      answers by status ({@code -1}: no answer)
     * @param violations    a line per violation
     */
    public record Result(long rounds, long roundsWon, long doubleWinners, long lostWinners, Map<Integer, Long> statuses,
                         List<String> violations, Path history) {
        public boolean passed() {
            return doubleWinners == 0 && lostWinners == 0 && roundsWon > 0;
        }
    }

    private final ChaosRun.Settings settings;
    private final PrintStream console;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong roundsWon = new AtomicLong();
    private final AtomicLong doubleWinners = new AtomicLong();
    private final AtomicLong lostWinners = new AtomicLong();
    private final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<String> history = new CopyOnWriteArrayList<>();

    /** @param settings as for {@link ChaosRun}; {@code clients} writers race per round, {@code keys} keys are played at once */
    /** The serve flag that turns conditional writes off; no node of the run gets it. */
    static final String CONDITIONAL_WRITES_OFF_FLAG = "--no-conditional-writes";

    public CasRun(ChaosRun.Settings settings, PrintStream console) {
        this.settings = settings;
        this.console = console;
    }

    public Result run() throws IOException, InterruptedException {
        long start = System.nanoTime();
        // This workload exists to test conditional writes: a --no-conditional-writes among the extra arguments goes.
        List<String> serveArgs = new ArrayList<>(settings.extraServeArgs());
        serveArgs.remove(CONDITIONAL_WRITES_OFF_FLAG);
        try (ClusterSession session = ClusterSession.start(settings.root(), settings.ports(),
                settings.faults().contains(Fault.PARTITION), settings.faults().contains(Fault.MEMBERSHIP), serveArgs, console)) {
            ChaosCluster cluster = session.cluster();
            console.println("[chaos cas] " + cluster.size() + " nodes up; " + settings.keys() + " keys, " + settings.clients()
                    + " writers per round, " + settings.duration().toSeconds() + " s with faults " + settings.faults()
                    + ", seed " + settings.seed());
            Nemesis nemesis = new Nemesis(cluster, settings.faults(), settings.seed(), 8_000, 5_000, event -> {
                long at = (System.nanoTime() - start) / 1_000_000;
                history.add("{\"nemesis\":" + JsonText.string(event) + ",\"atMillis\":" + at + "}");
                console.println("[chaos cas] " + at + " ms: " + event);
            });
            Thread nemesisThread = new Thread(nemesis, "chaos-nemesis");
            ExecutorService writers = Executors.newFixedThreadPool(settings.keys() * settings.clients());
            ExecutorService players = Executors.newFixedThreadPool(settings.keys());
            List<Future<?>> played = new ArrayList<>();
            nemesisThread.start();
            for (int k = 0; k < settings.keys(); k++) {
                String key = "cas-k" + k;
                played.add(players.submit(() -> {
                    play(cluster, key, writers);
                    return null;
                }));
            }
            Thread.sleep(settings.duration().toMillis());
            stopping.set(true);
            for (Future<?> player : played) {
                try {
                    player.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    violations.add("a key's player failed: " + e.getCause());
                }
            }
            players.shutdown();
            writers.shutdown();
            nemesis.stop();
            nemesisThread.join();
            if (nemesis.failure() != null) {
                throw new IllegalStateException("the nemesis failed: " + nemesis.failure(), nemesis.failure());
            }
            cluster.healAll();
            writeHistory();
            Map<Integer, Long> counts = new java.util.TreeMap<>();
            statuses.forEach((status, count) -> counts.put(status, count.get()));
            return new Result(rounds.get(), roundsWon.get(), doubleWinners.get(), lostWinners.get(), counts,
                    List.copyOf(violations), settings.history());
        } finally {
            http.close();
        }
    }

    private void play(ChaosCluster cluster, String key, ExecutorService writers) throws InterruptedException {
        int round = 0;
        while (!stopping.get()) {
            Optional<Read> before = read(cluster, key, round);
            if (before.isEmpty()) {
                Thread.sleep(100); // no node answered: a fault is in progress
                continue;
            }
            String[] condition = before.get().etag() == null ? new String[] {"If-None-Match", "*"}
                    : new String[] {"If-Match", before.get().etag()};
            List<Future<Attempt>> attempts = new ArrayList<>();
            for (int writer = 0; writer < settings.clients(); writer++) {
                int node = writer % cluster.size();
                String value = key + "-r" + round + "-w" + writer;
                attempts.add(writers.submit(() -> attempt(cluster.url(node), key, value, condition)));
            }
            List<Attempt> outcomes = new ArrayList<>();
            for (Future<Attempt> attempt : attempts) {
                try {
                    outcomes.add(attempt.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException(e.getCause());
                }
            }
            judge(cluster, key, round, condition, outcomes);
            round++;
        }
    }

    private record Attempt(String value, int status) {
        boolean unknown() {
            return status == -1 || status == 504;
        }
    }

    private record Read(String value, String etag) {
    }

    private Attempt attempt(String node, String key, String value, String[] condition) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(entity(node, key)).timeout(Duration.ofSeconds(10))
                .header(condition[0], condition[1]).PUT(HttpRequest.BodyPublishers.ofString(value)).build();
        int status;
        try {
            status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException noAnswer) {
            status = -1;
        }
        statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
        return new Attempt(value, status);
    }

    private void judge(ChaosCluster cluster, String key, int round, String[] condition, List<Attempt> outcomes)
            throws InterruptedException {
        rounds.incrementAndGet();
        List<Attempt> winners = outcomes.stream().filter(a -> a.status() == 201).toList();
        StringBuilder line = new StringBuilder("{\"key\":").append(JsonText.string(key)).append(",\"round\":").append(round)
                .append(",\"condition\":").append(JsonText.string(condition[0] + ": " + condition[1])).append(",\"answers\":{");
        for (int i = 0; i < outcomes.size(); i++) {
            line.append(i == 0 ? "" : ",").append(JsonText.string(outcomes.get(i).value())).append(':').append(outcomes.get(i).status());
        }
        line.append('}');
        if (winners.size() > 1) {
            doubleWinners.incrementAndGet();
            violations.add("double winner: " + key + " round " + round + " " + outcomes);
        }
        if (winners.size() == 1) {
            roundsWon.incrementAndGet();
            Optional<Read> after = read(cluster, key, round);
            line.append(",\"readAfter\":").append(after.map(r -> r.value() == null ? "null" : JsonText.string(r.value())).orElse("\"unread\""));
            if (after.isPresent() && !winners.getFirst().value().equals(after.get().value())) {
                lostWinners.incrementAndGet();
                violations.add("the winner's value was not read back: " + key + " round " + round + " " + outcomes
                        + " read " + after.get().value());
            }
        }
        history.add(line.append('}').toString());
    }

    /** A quorum read through any node that answers, a few tries; empty when none did. */
    private Optional<Read> read(ChaosCluster cluster, String key, int round) throws InterruptedException {
        for (int attempt = 0; attempt < cluster.size() * 2 && !stopping.get(); attempt++) {
            String node = cluster.url((round + attempt) % cluster.size());
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(entity(node, key)).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                if (response.statusCode() == 200) {
                    return Optional.of(new Read(response.body(), response.headers().firstValue("ETag").orElse(null)));
                }
                if (response.statusCode() == 404) {
                    return Optional.of(new Read(null, null));
                }
            } catch (IOException nodeDown) {
                // the next node
            }
        }
        return Optional.empty();
    }

    private static URI entity(String node, String key) {
        return URI.create(node + "/v0/entity?id=" + URLEncoder.encode(key, StandardCharsets.UTF_8));
    }

    private void writeHistory() throws IOException {
        Path file = settings.history();
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            out.write("{\"workload\":\"cas\",\"seed\":" + settings.seed() + ",\"nodes\":" + settings.ports().size() + ",\"faults\":"
                    + JsonText.string(settings.faults().toString()) + ",\"durationSeconds\":" + settings.duration().toSeconds() + "}\n");
            for (String line : history) {
                out.write(line);
                out.write('\n');
            }
        }
    }
}
