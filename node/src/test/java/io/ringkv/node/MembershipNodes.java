package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.is;

import io.ringkv.ops.JsonText;
import io.ringkv.ops.LocalPorts;
import io.ringkv.ops.NodeProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the membership tests share ({@link MembershipIT}, {@link MembershipFaultIT}): three node
 * processes started with {@code --cluster} (replication factor 3), nodes that join them with
 * {@code serve --join}, the writes every test must read back, and the checks (each acknowledged
 * write reads back; each key is on exactly three nodes by their local ranges; the metadata as
 * the nodes' status shows it). Every node hands over at {@value #STREAM_RATE} MB a second, slow
 * enough that a few megabytes of preloaded records take seconds to stream: long enough to kill,
 * pause or abort a step in the middle of it.
 *
 * <p>Threading: the test thread, one test at a time; {@link #acknowledged} and {@link #unsure}
 * are written by writer threads too.
 */
final class MembershipNodes implements AutoCloseable {
    /** A bound on each wait for the cluster, not a timing requirement. */
    static final Duration WAIT = Duration.ofSeconds(60);
    static final int RF = 3;
    /** The hand-over pace, MB read per second ({@code --stream-rate}): about 250 preloaded records a second. */
    static final String STREAM_RATE = "1";
    /**
     * The padding of a preloaded value, about 4 KB: the hand-over paces bytes, so a step takes as
     * long as with four times as many 1 KB records, and the preload and each read-back send a
     * quarter of the requests.
     */
    private static final String PRELOAD_PADDING = "p".repeat(4000);
    private static final Pattern MEMBER = Pattern.compile(
            "\\{\"id\":\"([^\"]*)\",\"url\":\"([^\"]*)\",\"state\":\"([^\"]*)\",\"index\":(\\d+)\\}");

    /** A node process started with {@code serve --join}, with what it printed. */
    record Joiner(String name, String url, NodeProcess process, ByteArrayOutputStream output) {
        int port() {
            return URI.create(url).getPort();
        }

        String printed() {
            return output.toString(StandardCharsets.UTF_8);
        }
    }

    /** A command's exit status and what it printed. */
    record Cli(int exit, String output) {
    }

    /** Every acknowledged write, key to value: what must read back. */
    final Map<String, String> acknowledged = new ConcurrentHashMap<>();
    /** Keys whose write was refused (not acknowledged) but may have reached some replicas: found or not, either is right. */
    final Set<String> unsure = ConcurrentHashMap.newKeySet();

    private final Path root;
    private final String prefix;
    private final int preload;
    private final ProcessCluster cluster;
    private final HttpClient client;
    private final List<Joiner> joiners = new ArrayList<>();
    private final List<BackgroundWriter> writers = new ArrayList<>();

    private MembershipNodes(Path root, String prefix, int preload, ProcessCluster cluster) {
        this.root = root;
        this.prefix = prefix;
        this.preload = preload;
        this.cluster = cluster;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    }

    /**
     * Three nodes under {@code root}, their metadata leader elected, {@code preload} keys of about
     * 4 KB under {@code prefix} written. A port chosen free can be taken before a node binds it on this shared
     * machine, and ProcessCluster then fails to start: one more try on other ports, in a directory
     * of its own.
     */
    static MembershipNodes start(Path root, String prefix, int preload) throws Exception {
        // Five JVMs at most on a shared two-core machine: a longer replica timeout than ProcessCluster's 1 s.
        List<String> args = List.of("--replica-timeout", "PT5S", "--stream-rate", STREAM_RATE);
        ProcessCluster cluster;
        try {
            cluster = new ProcessCluster(root.resolve("cluster-1"), 3, args);
        } catch (AssertionError notReady) {
            cluster = new ProcessCluster(root.resolve("cluster-2"), 3, args);
        }
        MembershipNodes nodes = new MembershipNodes(root, prefix, preload, cluster);
        try {
            nodes.awaitStatus(cluster.url(0), null, "the metadata leader elected with 3 normal members",
                    status -> leaderUrl(status) != null && normalMembers(status).size() == 3);
            nodes.preload();
        } catch (Exception | AssertionError e) {
            nodes.close();
            throw e;
        }
        return nodes;
    }

    ProcessCluster cluster() {
        return cluster;
    }

    @Override
    public void close() {
        stopWriters();
        for (Joiner joiner : joiners) {
            joiner.process().stop(Duration.ofSeconds(10));
        }
        client.close();
        cluster.close();
    }

    // --- load

    /** The preloaded keys, through the three nodes, four at a time. */
    private void preload() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> puts = new ArrayList<>();
            for (int i = 0; i < preload; i++) {
                String key = preloadKey(i);
                int node = i % 3;
                puts.add(pool.submit(() -> {
                    String value = key + "#preload#" + PRELOAD_PADDING;
                    HttpResponse<String> put = cluster.put(node, key, value, null);
                    if (put.statusCode() != 201) {
                        return key + ": " + put.statusCode() + " " + put.body();
                    }
                    acknowledged.put(key, value);
                    return null;
                }));
            }
            List<String> failed = new ArrayList<>();
            for (Future<String> put : puts) {
                if (put.get() != null) {
                    failed.add(put.get());
                }
            }
            assertThat("preload", failed, is(empty()));
        } finally {
            pool.shutdownNow();
        }
    }

    private String preloadKey(int i) {
        return String.format("%sp-%05d", prefix, i);
    }

    /** A running writer through {@code nodes}, new keys under the prefix and {@code name}, overwriting preloaded ones too. */
    BackgroundWriter startWriter(String name, int[] nodes) {
        List<String> preloaded = new ArrayList<>();
        for (int i = 0; i < preload; i++) {
            preloaded.add(preloadKey(i));
        }
        return startWriter(new BackgroundWriter(cluster, nodes, prefix + name, acknowledged, preloaded));
    }

    /** {@code writer} started, and stopped by {@link #stopWriters} if the test does not stop it. */
    BackgroundWriter startWriter(BackgroundWriter writer) {
        writers.add(writer);
        return writer.start();
    }

    /** A test that failed half-way leaves no writer running into the next. */
    void stopWriters() {
        for (BackgroundWriter writer : writers) {
            try {
                writer.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        writers.clear();
    }

    // --- joining nodes

    /** As below, with the cluster's secret. */
    Joiner startJoiner(String name, String member) throws Exception {
        return startJoiner(name, member, cluster.secretFile());
    }

    /**
     * A new node asking to join, on a port free when chosen. Another process on this shared
     * machine may take the port before the node binds it (seen under load: the node exits at once,
     * "Address already in use"); then it starts again on another port, up to three times. Its data
     * directory is still empty then: the node binds its port before it asks to join.
     */
    Joiner startJoiner(String name, String member, Path secret) throws Exception {
        return onAFreePort(port -> startJoiner(name, port, member, secret));
    }

    /** As {@link #startJoiner(String, String)}, with a warm-up of at most {@code warmUp} (the others have none). */
    Joiner startJoinerWarmingUp(String name, String member, java.time.Duration warmUp) throws Exception {
        List<String> flags = new ArrayList<>(joinerFlags(name, cluster.secretFile()));
        flags.set(flags.indexOf("--warm-up") + 1, warmUp.toString());
        return onAFreePort(port -> launch(name, port, "serve", concat(List.of("--port", Integer.toString(port), "--join", member),
                flags)));
    }

    /**
     * {@code ringkv replace --dead dead --node URL --join member} on a port free when chosen, tried
     * again on another port as {@link #startJoiner(String, String, Path)} is.
     */
    Joiner startReplacement(String name, String dead, String member) throws Exception {
        return onAFreePort(port -> launch(name, port, "replace", concat(List.of("--dead", dead, "--node",
                "http://127.0.0.1:" + port, "--join", member), joinerFlags(name, cluster.secretFile()))));
    }

    /** A node started on a port free when chosen, again on another one (up to three tries) if it lost the port. */
    private Joiner onAFreePort(PortStart start) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Joiner joiner = start.on(LocalPorts.free(1).get(0));
            if (!lostItsPort(joiner) || attempt == 3) {
                return joiner;
            }
        }
    }

    @FunctionalInterface
    private interface PortStart {
        Joiner on(int port) throws Exception;
    }

    /** The joiner started again on its port and data directory (its identity), as {@link #onItsPort} says. */
    Joiner restart(Joiner joiner, String member) throws Exception {
        return onItsPort(joiner, port -> startJoiner(joiner.name(), port, member, cluster.secretFile()));
    }

    /** The replacement started again with the same command: its port and data directory, the same dead member. */
    Joiner restartReplacement(Joiner replacement, String dead, String member) throws Exception {
        return onItsPort(replacement, port -> launch(replacement.name(), port, "replace", concat(List.of("--dead", dead,
                "--node", replacement.url(), "--join", member), joinerFlags(replacement.name(), cluster.secretFile()))));
    }

    /**
     * A node started again on the port it had. The port was free while it ran; should another
     * process take it meanwhile, the start is tried again a few times, a second apart, for that
     * process to let it go.
     */
    private Joiner onItsPort(Joiner before, PortStart start) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Joiner again = start.on(before.port());
            if (!lostItsPort(again) || attempt == 5) {
                return again;
            }
            Thread.sleep(1000);
        }
    }

    /** Whether the joiner exited because its port was taken (else it listens, or exited for another reason). */
    private boolean lostItsPort(Joiner joiner) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (joiner.process().isAlive() && System.nanoTime() < deadline) {
            try {
                send(joiner.url(), "GET", "/v0/status");
                return false;
            } catch (java.io.IOException notListeningYet) {
                Thread.sleep(50);
            }
        }
        if (joiner.process().isAlive()) {
            return false;
        }
        awaitExit(joiner);
        return joiner.printed().contains("Address already in use");
    }

    /** Starts {@code serve --join member} on {@code port}, its data in {@code root/name} (the same for a restart). */
    private Joiner startJoiner(String name, int port, String member, Path secret) throws Exception {
        return launch(name, port, "serve", concat(List.of("--port", Integer.toString(port), "--join", member),
                joinerFlags(name, secret)));
    }

    /** What every joining node is started with besides its own flags: its data in {@code root/name}, the secret, the pace. */
    private List<String> joinerFlags(String name, Path secret) {
        return List.of("--data", root.resolve(name).toString(), "--cluster-secret-file", secret.toString(), "--warm-up", "PT0S",
                "--replica-timeout", "PT5S", "--stream-rate", STREAM_RATE, "--drain-delay", "PT1S");
    }

    /**
     * As {@link #startJoiner(String, String)}, the JVM run by {@code setsid}, so that it is its
     * session's leader and only process, as under a service manager; null where this machine has
     * no {@code setsid}.
     */
    Joiner startJoinerInItsOwnSession(String name, String member) throws Exception {
        Path setsid = Stream.of("/usr/bin/setsid", "/bin/setsid").map(Path::of).filter(Files::isExecutable).findFirst()
                .orElse(null);
        if (setsid == null) {
            return null;
        }
        List<String> flags = joinerFlags(name, cluster.secretFile());
        // setsid execs the JVM in place (its caller leads no process group), so the node keeps the pid.
        return onAFreePort(port -> launch(name, port, sink -> new NodeProcess(name, List.of(setsid.toString()),
                concat(List.of("--port", Integer.toString(port), "--join", member), flags), sink)));
    }

    /** {@code ringkv subcommand args} as a node process listening on {@code port}, kept for close(). */
    private Joiner launch(String name, int port, String subcommand, List<String> args) throws Exception {
        return launch(name, port, sink -> NodeProcess.running(subcommand, name, args, sink));
    }

    private Joiner launch(String name, int port, Function<PrintStream, NodeProcess> command)
            throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        NodeProcess process = command.apply(new PrintStream(output, true, StandardCharsets.UTF_8)).start();
        Joiner joiner = new Joiner(name, "http://127.0.0.1:" + port, process, output);
        joiners.add(joiner);
        return joiner;
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    /** The last joiner named {@code name}, which a test before started and which must still run. */
    Joiner running(String name) {
        return joiners.stream().filter(j -> j.name().equals(name) && j.process().isAlive()).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError(name + " from the test before is not running"));
    }

    /** Waits for the process to exit (bounded) and returns its exit status. */
    int awaitExit(Joiner joiner) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (joiner.process().isAlive()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(joiner.name() + " did not exit within " + WAIT + ": " + joiner.printed());
            }
            Thread.sleep(100);
        }
        int exit = joiner.process().waitFor();
        Thread.sleep(200); // the pump thread copies the last lines after the exit
        return exit;
    }

    /** The joiner says its join is done, and the metadata lists it normal beside three other normal members. */
    void awaitJoined(Joiner joiner) throws Exception {
        awaitStatus(joiner, joiner.name() + "'s join done", status -> "done".equals(membershipPhase(status)));
        awaitStatus(cluster.url(0), null, joiner.name() + " normal in the metadata",
                status -> normalMembers(status).size() == 4 && normalMembers(status).contains(joiner.url()));
    }

    // --- reads and placement

    /** Every acknowledged write through some node (in turn), and a sample of 50 through each node. */
    void readBack(List<String> nodes) throws Exception {
        List<String> keys = new ArrayList<>(new TreeSet<>(acknowledged.keySet()));
        ExecutorService readers = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> reads = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                String node = nodes.get(i % nodes.size());
                reads.add(readers.submit(() -> wrongRead(node, key)));
            }
            int step = Math.max(1, keys.size() / 50);
            for (String node : nodes) {
                for (int i = 0; i < keys.size(); i += step) {
                    String key = keys.get(i);
                    reads.add(readers.submit(() -> wrongRead(node, key)));
                }
            }
            List<String> wrong = new ArrayList<>();
            for (Future<String> read : reads) {
                String failure = read.get();
                if (failure != null) {
                    wrong.add(failure);
                }
            }
            assertThat("reads of " + keys.size() + " acknowledged keys", wrong, is(empty()));
        } finally {
            readers.shutdownNow();
        }
    }

    /** Null when {@code key} reads back its acknowledged value through {@code node}, else what it read. */
    String wrongRead(String node, String key) throws Exception {
        HttpResponse<String> got = send(node, "GET", "/v0/entity?id=" + key);
        if (got.statusCode() == 200 && got.body().equals(acknowledged.get(key))) {
            return null;
        }
        String body = got.body();
        return key + " through " + node + ": " + got.statusCode() + " " + body.substring(0, Math.min(80, body.length()));
    }

    /** Waits (bounded: cleanup and the last replica writes are asynchronous) until every key is on exactly three nodes. */
    void awaitOnExactlyThree(List<String> nodes) throws Exception {
        awaitOnExactly(RF, nodes);
    }

    /** As {@link #awaitOnExactlyThree}, for a cluster whose replication factor is {@code copies}. */
    void awaitOnExactly(int copies, List<String> nodes) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Map<String, Set<String>> wrong = misplaced(copies, nodes);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            wrong = misplaced(copies, nodes);
        }
        assertThat(wrong.size() + " keys not on exactly " + copies + " of " + nodes, wrong.entrySet().stream().limit(10).toList(),
                is(empty()));
    }

    /**
     * Acknowledged keys held (by local ranges) by other than {@code copies} nodes, with their
     * holders; and keys never written (a key in {@link #unsure} may be anywhere).
     */
    private Map<String, Set<String>> misplaced(int copies, List<String> nodes) throws Exception {
        Map<String, Set<String>> holders = new TreeMap<>();
        for (String node : nodes) {
            for (String key : localKeys(node)) {
                holders.computeIfAbsent(key, k -> new TreeSet<>()).add(node);
            }
        }
        Map<String, Set<String>> wrong = new TreeMap<>();
        for (String key : acknowledged.keySet()) {
            Set<String> on = holders.getOrDefault(key, Set.of());
            if (on.size() != copies) {
                wrong.put(key, on);
            }
        }
        holders.keySet().stream().filter(key -> !acknowledged.containsKey(key) && !unsure.contains(key))
                .forEach(key -> wrong.put(key + " (never acknowledged)", holders.get(key)));
        return wrong;
    }

    /** The keys under the prefix this node's own store holds. */
    List<String> localKeys(String node) throws Exception {
        RawHttp.Reply reply = RawHttp.get(URI.create(node).getPort(), "/v0/entities?start=" + prefix + "&end=" + prefix + "~&local=true");
        assertThat(node + " local range", reply.status(), is(200));
        List<String> keys = new ArrayList<>();
        for (byte[] chunk : reply.chunks()) {
            String text = new String(chunk, StandardCharsets.UTF_8);
            keys.add(text.substring(0, text.indexOf('\n')));
        }
        return keys;
    }

    // --- commands

    /**
     * A command of the node's CLI in this JVM with the cluster secret, its {@code System.out}
     * captured (a terminal program prints there; the tests run one at a time).
     */
    Cli cli(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--cluster-secret-file", cluster.secretFile().toString()));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream original = System.out;
        int exit;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            exit = Main.run(all.toArray(String[]::new));
        } finally {
            System.setOut(original);
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        original.print(output);
        return new Cli(exit, output);
    }

    /**
     * {@code ringkv cleanup --wait} on every node at once: each run scans its node's store at the
     * hand-over pace, so one after the other they would take seconds each.
     */
    void cleanupAll(List<String> nodes) throws Exception {
        ExecutorService runs = Executors.newFixedThreadPool(nodes.size());
        try {
            List<Future<String>> failures = new ArrayList<>();
            for (String node : nodes) {
                failures.add(runs.submit(() -> {
                    java.io.StringWriter printed = new java.io.StringWriter();
                    java.io.PrintWriter out = new java.io.PrintWriter(printed, true);
                    int exit = Main.run(out, out, "cleanup", "--node", node, "--wait", "--timeout", "PT60S",
                            "--cluster-secret-file", cluster.secretFile().toString());
                    return exit == 0 ? null : "cleanup on " + node + ": exit " + exit + ": " + printed;
                }));
            }
            List<String> failed = new ArrayList<>();
            for (Future<String> failure : failures) {
                if (failure.get() != null) {
                    failed.add(failure.get());
                }
            }
            assertThat(failed, is(empty()));
        } finally {
            runs.shutdownNow();
        }
    }

    // --- status

    HttpResponse<String> send(String node, String method, String target) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(node + target)).timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** The initial node at {@code url}. */
    int indexOf(String url) {
        for (int i = 0; i < cluster.size(); i++) {
            if (cluster.url(i).equals(url)) {
                return i;
            }
        }
        throw new AssertionError(url + " is not an initial node");
    }

    /**
     * The metadata's epoch and members as the node's status shows them; not its leader or role,
     * which an election may change meanwhile without any membership change.
     */
    String metadata(String node) throws Exception {
        return metadataOf(send(node, "GET", "/v0/status").body());
    }

    /** As {@link #metadata}, or "" when the node does not answer (yet). */
    String metadataOrEmpty(String node) {
        try {
            return metadata(node);
        } catch (Exception notAnswering) {
            return "";
        }
    }

    static String metadataOf(String status) {
        String metadata = status.substring(status.indexOf("\"metadata\":{"));
        long epoch = JsonText.numberField(metadata, "epoch").map(Double::longValue).orElse(-1L);
        int members = metadata.indexOf("\"members\":[");
        return "epoch " + epoch + " " + metadata.substring(members, metadata.indexOf(']', members) + 1);
    }

    /** The metadata leader's URL as the status names it (its id, looked up among the members), or null. */
    static String leaderUrl(String status) {
        String leader = JsonText.stringField(status.substring(status.indexOf("\"metadata\":{")), "leader").orElse(null);
        Matcher member = MEMBER.matcher(status);
        while (leader != null && member.find()) {
            if (member.group(1).equals(leader)) {
                return member.group(2);
            }
        }
        return null;
    }

    static Set<String> normalMembers(String status) {
        Set<String> normal = new TreeSet<>();
        Matcher member = MEMBER.matcher(status);
        while (member.find()) {
            if (member.group(3).equals("normal")) {
                normal.add(member.group(2));
            }
        }
        return normal;
    }

    static String stateOf(String status, String url) {
        Matcher member = MEMBER.matcher(status);
        while (member.find()) {
            if (member.group(2).equals(url)) {
                return member.group(3);
            }
        }
        return "absent";
    }

    static String membershipPhase(String status) {
        int at = status.indexOf("\"membership\":{");
        return at < 0 ? null : JsonText.stringField(status.substring(at), "phase").orElse(null);
    }

    /** As below, on a joiner, which must not exit meanwhile. */
    void awaitStatus(Joiner joiner, String what, Predicate<String> condition) throws Exception {
        awaitStatus(joiner.url(), joiner, what, condition);
    }

    /**
     * Polls {@code node}'s {@code /v0/status} until {@code condition} holds (bounded by {@link #WAIT});
     * with a {@code process}, fails as soon as that process exits.
     */
    void awaitStatus(String node, Joiner process, String what, Predicate<String> condition) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = null;
        while (System.nanoTime() < deadline) {
            if (process != null && !process.process().isAlive()) {
                Thread.sleep(200); // the pump thread copies the last lines after the exit
                throw new AssertionError(process.name() + " exited (" + process.process().waitFor() + ") before " + what
                        + "; it printed:\n" + process.printed());
            }
            try {
                last = send(node, "GET", "/v0/status").body();
                if (condition.test(last)) {
                    return;
                }
            } catch (java.io.IOException notAnswering) {
                // not serving yet (a joining node asks to join before it listens), or killed: polled again
            }
            Thread.sleep(50);
        }
        throw new AssertionError("not within " + WAIT + ": " + what + "; last status of " + node + ": " + last
                + (process == null ? "" : "; " + process.name() + " printed:\n" + process.printed()));
    }
}
