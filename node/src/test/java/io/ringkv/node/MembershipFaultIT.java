package io.ringkv.node;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership steps under faults (issue 33), on node processes; the joining node killed while it
 * streams is {@link MembershipIT}'s. Three nodes started with {@code --cluster} (replication factor
 * 3, every one a metadata voter) serve the whole class, in order:
 * <ol>
 *   <li>the metadata group's leader SIGKILLed while a node joins (the join completes once it is
 *       back);
 *   <li>that joined node SIGKILLed while it hands its keys over in its decommission, and started
 *       again (the decommission completes, the process exits 0);
 *   <li>a member SIGSTOPped before a join begins, so that it misses the epoch that names the
 *       joining node, and woken while the join waits for it (it catches up and answers right);
 *   <li>the metadata leader SIGKILLed while that node hands its keys over in its decommission
 *       (the decommission completes once it is back).
 * </ol>
 * A writer keeps PUTting through the nodes that are not hit; every acknowledged write must read
 * back and, once the former owners cleaned up, be on exactly three nodes' local ranges. Only while
 * a node sleeps (3) may a write be refused, and only with a 5xx answer.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembershipFaultIT {
    /** A bound on each wait for the cluster, not a timing requirement. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int RF = 3;
    private static final int PRELOAD = 1_500;
    private static final String PREFIX = "mf-";
    /**
     * The owners' scan pace, records per second, which a join's streaming and a decommission's
     * hand-over share: a few thousand records then take seconds, long enough to kill a node in the
     * middle of them.
     */
    private static final String SCAN_RATE = "1000";
    private static final Pattern MEMBER = Pattern.compile(
            "\\{\"id\":\"([^\"]*)\",\"url\":\"([^\"]*)\",\"state\":\"([^\"]*)\",\"index\":(\\d+)\\}");

    @TempDir
    static Path root;

    private static ProcessCluster cluster;
    private static HttpClient client;
    /** Every acknowledged write of the class, key to value: what must read back. */
    private static final Map<String, String> acknowledged = new ConcurrentHashMap<>();
    private static final List<Joiner> joiners = new ArrayList<>();
    private static final List<BackgroundWriter> writers = new ArrayList<>();
    /** Keys whose write was refused (not acknowledged) but may have reached some replicas: found or not, either is right. */
    private static final Set<String> unsure = ConcurrentHashMap.newKeySet();
    /** The initial node SIGSTOPped now, or -1: woken before the cluster stops, or it would not stop. */
    private static volatile int paused = -1;

    /** A node process started with {@code serve --join}, with what it printed. */
    private record Joiner(String name, String url, NodeProcess process, ByteArrayOutputStream output) {
        int port() {
            return URI.create(url).getPort();
        }

        String printed() {
            return output.toString(StandardCharsets.UTF_8);
        }
    }

    @BeforeAll
    static void start() throws Exception {
        // Up to five JVMs on a shared two-core machine: a longer replica timeout than ProcessCluster's 1 s.
        List<String> args = List.of("--replica-timeout", "PT5S", "--anti-entropy-scan-rate", SCAN_RATE);
        try {
            cluster = new ProcessCluster(root.resolve("cluster-1"), 3, args);
        } catch (AssertionError notReady) {
            // A port chosen free was taken before a node bound it (see startJoiner): once more, on other ports.
            cluster = new ProcessCluster(root.resolve("cluster-2"), 3, args);
        }
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        awaitStatus(cluster.url(0), null, "the metadata leader elected with 3 normal members",
                status -> leaderUrl(status) != null && normalMembers(status).size() == 3);
        preload();
    }

    /** A test that failed half-way leaves no writer running into the next. */
    @AfterEach
    void stopWriters() throws Exception {
        for (BackgroundWriter writer : writers) {
            writer.stop();
        }
        writers.clear();
        if (paused >= 0) {
            cluster.resume(paused);
            paused = -1;
        }
    }

    @AfterAll
    static void stop() {
        for (Joiner joiner : joiners) {
            joiner.process().stop(Duration.ofSeconds(10));
        }
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * The metadata leader (an initial node: only they are voters) SIGKILLed while a node joins,
     * in the middle of the owners' streaming: the other two elect a leader and keep taking writes;
     * once the killed node is started again (same port and data) the join completes, every
     * acknowledged write reads back and, after cleanup, is on exactly its three owners.
     */
    @Test
    @Order(1)
    void theMetadataLeaderKilledDuringAJoin() throws Exception {
        String before = send(cluster.url(0), "GET", "/v0/status").body();
        int leader = indexOf(leaderUrl(before));
        int[] survivors = IntStream.range(0, 3).filter(i -> i != leader).toArray();
        BackgroundWriter writer = startWriter("w1-", survivors);
        writer.awaitMore(20);

        Joiner joining = startJoiner("joiner-1", cluster.url(survivors[0]));
        awaitStatus(joining, "joiner-1 streaming", status -> "streaming".equals(membershipPhase(status)));
        cluster.kill(leader);
        awaitStatus(cluster.url(survivors[0]), null, "a leader elected among the two others",
                status -> leaderUrl(status) != null && !leaderUrl(status).equals(cluster.url(leader)));
        writer.awaitMore(50); // writes while the killed node is down

        cluster.restart(leader);
        awaitJoined(joining);
        writer.awaitMore(20);
        assertThat("writes during the join, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> nodes = List.of(cluster.url(0), cluster.url(1), cluster.url(2), joining.url());
        readBack(nodes);
        cleanupAll(nodes);
        awaitOnExactlyThree(nodes);
    }

    /**
     * The node that joined in the test before is decommissioned and SIGKILLed while it hands its
     * keys over; started again with the same flags and data directory, it takes up its
     * decommission, completes it and exits 0; it is {@code left}, and every key is on exactly three
     * of the rest.
     */
    @Test
    @Order(2)
    void theLeavingNodeKilledDuringItsHandOver() throws Exception {
        Joiner member = running("joiner-1");
        BackgroundWriter writer = startWriter("w2-", new int[] {0, 1, 2});
        writer.awaitMore(20);

        Cli leaving = cli("decommission", "--node", member.url(), "--no-wait");
        assertThat(leaving.output(), leaving.exit(), is(0));
        awaitStatus(member, "joiner-1 handing its keys over", status -> "streaming".equals(membershipPhase(status)));
        member.process().kill();
        String meanwhile = metadata(cluster.url(0));
        assertThat(meanwhile, stateOf(meanwhile, member.url()), is("leaving"));

        Joiner again = restart(member, cluster.url(0));
        int exit = awaitExit(again);
        assertThat("the decommissioned process's exit status; it printed:\n" + again.printed(), exit, is(0));
        writer.awaitMore(50);
        assertThat("writes during the decommission, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> remaining = List.of(cluster.url(0), cluster.url(1), cluster.url(2));
        String after = metadata(cluster.url(0));
        assertThat(after, stateOf(after, member.url()), is("left"));
        assertThat(after, normalMembers(after), equalTo(new TreeSet<>(remaining)));
        readBack(remaining);
        awaitOnExactlyThree(remaining);
    }

    /**
     * A member SIGSTOPped before a join begins misses the epoch that names the joining node; the
     * join waits for every owner to know that epoch, so it waits for the stopped one. Woken, the
     * member's first requests are answered right (a PUT through it is acknowledged and reads back),
     * the join completes, the member shows the same epoch and members as the others, and what was
     * written through it ends on exactly its three owners. (The member cannot sleep through the
     * whole join, as the issue puts it: no join goes on while an owner may route by the view
     * before it.)
     */
    @Test
    @Order(3)
    void aMemberThatMissedEpochsCatchesUp() throws Exception {
        String status = send(cluster.url(0), "GET", "/v0/status").body();
        int leader = indexOf(leaderUrl(status));
        int stale = (leader + 1) % 3;
        int[] awake = IntStream.range(0, 3).filter(i -> i != stale).toArray();
        // While a node sleeps, a write of a key it owns needs every other replica; one of them is
        // the joining node, which takes writes only once it serves, a moment after the metadata
        // names it. A write that falls in that moment is refused (504, not acknowledged), and may
        // still be on some replicas: so this writer writes new keys only, and a refused key may be
        // found or not.
        BackgroundWriter writer = new BackgroundWriter(cluster, awake, PREFIX + "w3-", acknowledged, List.of());
        writers.add(writer.start());
        writer.awaitMore(20);

        String before = metadata(cluster.url(stale));
        cluster.pause(stale);
        paused = stale;
        Joiner joining = startJoiner("joiner-2", cluster.url(awake[0]));
        awaitStatus(joining, "joiner-2 waiting for the owners to know its epoch",
                s -> String.valueOf(membershipPhase(s)).startsWith("waiting for every owner"));
        String named = metadata(cluster.url(awake[0]));
        assertThat(named, stateOf(named, joining.url()), is("joining"));
        writer.awaitMore(20); // writes while the member sleeps

        cluster.resume(stale);
        paused = -1;
        // Its first requests after waking, sent at once: it must not answer from the epoch it slept at.
        String key = PREFIX + "stale-0";
        String value = BackgroundWriter.value(key, 0);
        HttpResponse<String> put = cluster.put(stale, key, value, null);
        assertThat(put.body(), put.statusCode(), is(201));
        acknowledged.put(key, value);
        assertThat(wrongRead(cluster.url(stale), key), is((String) null));

        awaitJoined(joining);
        awaitStatus(cluster.url(stale), null, "the woken member at the others' epoch and members",
                s -> metadataOf(s).equals(metadataOrEmpty(cluster.url(awake[0]))));
        assertThat(metadata(cluster.url(stale)), not(equalTo(before)));
        for (int i = 1; i <= 20; i++) {
            String after = PREFIX + "stale-" + i;
            String afterValue = BackgroundWriter.value(after, i);
            HttpResponse<String> written = cluster.put(stale, after, afterValue, null);
            assertThat(written.body(), written.statusCode(), is(201));
            acknowledged.put(after, afterValue);
        }
        writer.awaitMore(20);
        List<String> refused = writer.stop();
        for (String failure : refused) {
            assertThat("only refusals (no write is lost or half answered): " + refused, failure, containsString(": 50"));
            unsure.add(failure.substring(0, failure.indexOf(" through ")));
        }

        List<String> nodes = List.of(cluster.url(0), cluster.url(1), cluster.url(2), joining.url());
        readBack(nodes);
        cleanupAll(nodes);
        awaitOnExactlyThree(nodes);
    }

    /**
     * The node that joined in the test before is decommissioned and the metadata leader SIGKILLed
     * while it hands its keys over (the leader is one of the owners it hands them to): once the
     * killed node is back the decommission completes, the process exits 0, it is {@code left}, and
     * every key is on exactly three of the rest.
     */
    @Test
    @Order(4)
    void theMetadataLeaderKilledDuringADecommission() throws Exception {
        Joiner member = running("joiner-2");
        int leader = indexOf(leaderUrl(send(cluster.url(0), "GET", "/v0/status").body()));
        int[] survivors = IntStream.range(0, 3).filter(i -> i != leader).toArray();
        BackgroundWriter writer = startWriter("w4-", survivors);
        writer.awaitMore(20);

        Cli leaving = cli("decommission", "--node", member.url(), "--no-wait");
        assertThat(leaving.output(), leaving.exit(), is(0));
        awaitStatus(member, "joiner-2 handing its keys over", status -> "streaming".equals(membershipPhase(status)));
        cluster.kill(leader);
        awaitStatus(cluster.url(survivors[0]), null, "a leader elected among the two others",
                status -> leaderUrl(status) != null && !leaderUrl(status).equals(cluster.url(leader)));
        writer.awaitMore(50); // writes while the killed node is down

        cluster.restart(leader);
        int exit = awaitExit(member);
        assertThat("the decommissioned process's exit status; it printed:\n" + member.printed(), exit, is(0));
        writer.awaitMore(20);
        assertThat("writes during the decommission, of " + writer.writes(), writer.stop(), is(empty()));

        List<String> remaining = List.of(cluster.url(0), cluster.url(1), cluster.url(2));
        String after = metadata(cluster.url(0));
        assertThat(after, stateOf(after, member.url()), is("left"));
        assertThat(after, normalMembers(after), equalTo(new TreeSet<>(remaining)));
        readBack(remaining);
        awaitOnExactlyThree(remaining);
    }

    // --- load

    /** {@value #PRELOAD} keys of about 1 KB through the three nodes, four at a time. */
    private static void preload() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> puts = new ArrayList<>();
            for (int i = 0; i < PRELOAD; i++) {
                String key = preloadKey(i);
                int node = i % 3;
                puts.add(pool.submit(() -> {
                    String value = BackgroundWriter.value(key, -1);
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

    private static String preloadKey(int i) {
        return String.format("%sp-%05d", PREFIX, i);
    }

    /** A writer through {@code nodes} (not the ones a test kills or stops), new keys under {@code PREFIX + name}. */
    private static BackgroundWriter startWriter(String name, int[] nodes) {
        List<String> preloaded = IntStream.range(0, PRELOAD).mapToObj(MembershipFaultIT::preloadKey).toList();
        BackgroundWriter writer = new BackgroundWriter(cluster, nodes, PREFIX + name, acknowledged, preloaded);
        writers.add(writer);
        return writer.start();
    }

    // --- joining nodes

    /**
     * A new node asking to join, on a port free when chosen; another process on this shared machine
     * may take it before the node binds it (the node exits, "Address already in use"): then on
     * another port, up to three times. Its data directory is still empty then.
     */
    private static Joiner startJoiner(String name, String member) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Joiner joiner = startJoiner(name, LocalPorts.free(1).get(0), member);
            if (!lostItsPort(joiner) || attempt == 3) {
                return joiner;
            }
        }
    }

    /** The node started again on its port and data directory (its identity), tried again a second apart should its port be taken. */
    private static Joiner restart(Joiner joiner, String member) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Joiner again = startJoiner(joiner.name(), joiner.port(), member);
            if (!lostItsPort(again) || attempt == 5) {
                return again;
            }
            Thread.sleep(1000);
        }
    }

    /** Whether the node exited because its port was taken (else it listens, or exited for another reason). */
    private static boolean lostItsPort(Joiner joiner) throws Exception {
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

    /** {@code serve --join member} on {@code port}, its data in {@code root/name} (the same for a restart). */
    private static Joiner startJoiner(String name, int port, String member) throws Exception {
        List<String> args = List.of("--port", Integer.toString(port), "--data", root.resolve(name).toString(), "--join", member,
                "--cluster-secret-file", cluster.secretFile().toString(), "--warm-up", "PT0S", "--replica-timeout", "PT5S",
                "--anti-entropy-scan-rate", SCAN_RATE, "--drain-delay", "PT1S");
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        NodeProcess process = new NodeProcess(name, args, new PrintStream(output, true, StandardCharsets.UTF_8)).start();
        Joiner joiner = new Joiner(name, "http://127.0.0.1:" + port, process, output);
        joiners.add(joiner);
        return joiner;
    }

    private static Joiner running(String name) {
        return joiners.stream().filter(j -> j.name().equals(name) && j.process().isAlive()).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError(name + " from the test before is not running"));
    }

    /** Waits for the process to exit (bounded) and returns its exit status. */
    private static int awaitExit(Joiner joiner) throws Exception {
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
    private static void awaitJoined(Joiner joiner) throws Exception {
        awaitStatus(joiner, joiner.name() + "'s join done", status -> "done".equals(membershipPhase(status)));
        awaitStatus(cluster.url(0), null, joiner.name() + " normal in the metadata",
                status -> normalMembers(status).size() == 4 && normalMembers(status).contains(joiner.url()));
    }

    // --- reads and placement

    /** Every acknowledged write through some node (in turn), and a sample of 50 through each node. */
    private static void readBack(List<String> nodes) throws Exception {
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
    private static String wrongRead(String node, String key) throws Exception {
        HttpResponse<String> got = send(node, "GET", "/v0/entity?id=" + key);
        if (got.statusCode() == 200 && got.body().equals(acknowledged.get(key))) {
            return null;
        }
        String body = got.body();
        return key + " through " + node + ": " + got.statusCode() + " " + body.substring(0, Math.min(80, body.length()));
    }

    /**
     * {@code ringkv cleanup --wait} on every node at once: each run scans its node's store at the
     * scan pace, so one after the other they would take seconds each.
     */
    private static void cleanupAll(List<String> nodes) throws Exception {
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

    /** Waits (bounded: cleanup and the last replica writes are asynchronous) until every key is on exactly three nodes. */
    private static void awaitOnExactlyThree(List<String> nodes) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Map<String, Set<String>> wrong = misplaced(nodes);
        while (!wrong.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            wrong = misplaced(nodes);
        }
        assertThat(wrong.size() + " keys not on exactly " + RF + " of " + nodes, wrong.entrySet().stream().limit(10).toList(),
                is(empty()));
    }

    /** Acknowledged keys held (by local ranges) by other than {@value #RF} nodes, with their holders; and keys never written. */
    private static Map<String, Set<String>> misplaced(List<String> nodes) throws Exception {
        Map<String, Set<String>> holders = new TreeMap<>();
        for (String node : nodes) {
            RawHttp.Reply reply = RawHttp.get(URI.create(node).getPort(),
                    "/v0/entities?start=" + PREFIX + "&end=" + PREFIX + "~&local=true");
            assertThat(node + " local range", reply.status(), is(200));
            for (byte[] chunk : reply.chunks()) {
                String text = new String(chunk, StandardCharsets.UTF_8);
                holders.computeIfAbsent(text.substring(0, text.indexOf('\n')), k -> new TreeSet<>()).add(node);
            }
        }
        Map<String, Set<String>> wrong = new TreeMap<>();
        for (String key : acknowledged.keySet()) {
            Set<String> on = holders.getOrDefault(key, Set.of());
            if (on.size() != RF) {
                wrong.put(key, on);
            }
        }
        holders.keySet().stream().filter(key -> !acknowledged.containsKey(key) && !unsure.contains(key))
                .forEach(key -> wrong.put(key + " (never acknowledged)", holders.get(key)));
        return wrong;
    }

    // --- commands

    private record Cli(int exit, String output) {
    }

    /** A command of the node's CLI in this JVM, its {@code System.out} captured (this class's tests run one at a time). */
    private static Cli cli(String... args) throws Exception {
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

    // --- status

    private static HttpResponse<String> send(String node, String method, String target) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(node + target)).timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    /** The initial node at {@code url}. */
    private static int indexOf(String url) {
        for (int i = 0; i < cluster.size(); i++) {
            if (cluster.url(i).equals(url)) {
                return i;
            }
        }
        throw new AssertionError(url + " is not an initial node");
    }

    /** The metadata leader's URL as the status names it (its id, looked up among the members), or null. */
    private static String leaderUrl(String status) {
        String leader = JsonText.stringField(status.substring(status.indexOf("\"metadata\":{")), "leader").orElse(null);
        Matcher member = MEMBER.matcher(status);
        while (leader != null && member.find()) {
            if (member.group(1).equals(leader)) {
                return member.group(2);
            }
        }
        return null;
    }

    /**
     * The metadata's epoch and members as the node's status shows them; not its leader or role,
     * which an election may change meanwhile without any membership change.
     */
    private static String metadata(String node) throws Exception {
        return metadataOf(send(node, "GET", "/v0/status").body());
    }

    /** As {@link #metadata}, or "" when the node does not answer (yet). */
    private static String metadataOrEmpty(String node) {
        try {
            return metadata(node);
        } catch (Exception notAnswering) {
            return "";
        }
    }

    private static String metadataOf(String status) {
        String metadata = status.substring(status.indexOf("\"metadata\":{"));
        long epoch = JsonText.numberField(metadata, "epoch").map(Double::longValue).orElse(-1L);
        int members = metadata.indexOf("\"members\":[");
        return "epoch " + epoch + " " + metadata.substring(members, metadata.indexOf(']', members) + 1);
    }

    private static Set<String> normalMembers(String status) {
        Set<String> normal = new TreeSet<>();
        Matcher member = MEMBER.matcher(status);
        while (member.find()) {
            if (member.group(3).equals("normal")) {
                normal.add(member.group(2));
            }
        }
        return normal;
    }

    private static String stateOf(String status, String url) {
        Matcher member = MEMBER.matcher(status);
        while (member.find()) {
            if (member.group(2).equals(url)) {
                return member.group(3);
            }
        }
        return "absent";
    }

    private static String membershipPhase(String status) {
        int at = status.indexOf("\"membership\":{");
        return at < 0 ? null : JsonText.stringField(status.substring(at), "phase").orElse(null);
    }

    /** As below, on a joiner, which must not exit meanwhile. */
    private static void awaitStatus(Joiner joiner, String what, Predicate<String> condition) throws Exception {
        awaitStatus(joiner.url(), joiner, what, condition);
    }

    /** Polls {@code node}'s {@code /v0/status} until {@code condition} holds (bounded by {@link #WAIT}). */
    private static void awaitStatus(String node, Joiner process, String what, Predicate<String> condition) throws Exception {
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
                // not serving yet, or killed and not started again yet: polled again
            }
            Thread.sleep(50);
        }
        throw new AssertionError("not within " + WAIT + ": " + what + "; last status of " + node + ": " + last
                + (process == null ? "" : "; " + process.name() + " printed:\n" + process.printed()));
    }
}
